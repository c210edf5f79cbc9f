import { badGateway, badRequest, gatewayTimeout, notFound } from "../http/problem";
import { bcvClientConfigFromEnv, fetchOfficialRate, type PublishedRate, RateSourceError } from "./bcv-client";
import { changeSince } from "./change";
import { CURRENCY_NAMES, DOLLAR, KNOWN_CURRENCIES, parseCurrencyCode, parseCurrencyList } from "./currencies";
import { addDaysClamped, daysBetween } from "./dates";
import { type FetchTrigger, recordFetch } from "./fetch-log";
import { ratesToday } from "./in-force";
import { invalidateRateReads } from "./read-cache";
import {
  type CurrencyValue,
  findLatestRate,
  findLatestRateBefore,
  findLatestRateOnOrBefore,
  findRateByDate,
  listCurrencyRatesBetween,
  listLatestCurrencyRatesBefore,
  listRatesBetween,
  type StoredRate,
  saveHomePageRates,
  summarizeCurrencies,
} from "./repository";
import {
  type CurrencyChangeView,
  type CurrencyView,
  DEFAULT_HISTORY_SPAN_DAYS,
  type LatestRateQuery,
  MAX_HISTORY_SPAN_DAYS,
  type RateByDateQuery,
  type RateHistoryQuery,
  type RateHistoryView,
  type RateView,
  type StoredRateView,
} from "./schemas";

// Storage keeps the published decimal text; JSON carries it as a number.
export function toRateView(rate: StoredRate): RateView {
  return { dollar: Number(rate.dollar), date: rate.date };
}

/**
 * An answer of one rate tells what it is: whether it is the rate in force today (lib/rates/in-force.ts) and
 * when this service first stored it.
 */
async function describedRate(view: RateView, rate: StoredRate): Promise<RateView> {
  const inForce = await findLatestRateOnOrBefore(ratesToday());
  return { ...view, in_force: rate.date === inForce?.date, published_at: rate.publishedAt.toISOString() };
}

export async function toStoredRateView(rate: StoredRate): Promise<StoredRateView> {
  return { id: rate.id, ...(await describedRate(toRateView(rate), rate)) };
}

type CurrencyList = string[] | "all" | undefined;
type RateReadOptions = { currencies?: string; include?: "change" };

/**
 * The views of stored dollar rates (newest first) as a read answers them: `rates` (bolivars per unit by code)
 * when `currencies` was asked, the change since the previous value date with include=change; exactly the
 * dollar's otherwise. 400 naming a malformed or unknown code.
 */
async function buildViews(stored: StoredRate[], options: RateReadOptions): Promise<RateView[]> {
  const asked = parseCurrencyList(options.currencies);
  if (stored.length === 0) return [];
  const oldest = stored.at(-1)!.date;
  const values = asked === undefined ? [] : await listCurrencyRatesBetween(oldest, stored[0].date, asked);
  let views = stored.map(toRateView);
  if (asked !== undefined) views = withCurrencies(views, values, asked);
  if (options.include === "change") views = await withChanges(views, stored, values, asked);
  return views;
}

function withCurrencies(views: RateView[], values: CurrencyValue[], asked: string[] | "all"): RateView[] {
  const byDate = new Map<string, Map<string, number>>();
  for (const value of values) {
    let ofDate = byDate.get(value.date);
    if (!ofDate) byDate.set(value.date, (ofDate = new Map()));
    ofDate.set(value.currency, Number(value.rate));
  }
  const order = asked === "all" ? KNOWN_CURRENCIES : asked;
  return views.map((view) => {
    const ofDate = byDate.get(view.date);
    const rates: Record<string, number> = {};
    for (const code of order) {
      const value = ofDate?.get(code);
      if (value !== undefined) rates[code] = value;
    }
    return { ...view, rates };
  });
}

/**
 * Adds the change since the previous value date: the dollar's (`previous`, `change`, `change_percent`), and
 * each asked currency's (`changes`), whose previous value date is its own newest earlier one. `stored` and
 * `values` are every dollar rate and asked value from the oldest to the newest view's date, so each one's
 * previous is the next older in the list, or, for the oldest, the newest stored before the list.
 */
async function withChanges(
  views: RateView[],
  stored: StoredRate[],
  values: CurrencyValue[],
  asked: CurrencyList,
): Promise<RateView[]> {
  const oldest = stored.at(-1)!.date;
  const before = await findLatestRateBefore(oldest);
  const dollars = before ? [...stored, before] : stored;
  const valuesBefore = asked === undefined ? [] : await listLatestCurrencyRatesBefore(oldest, asked);
  // Each currency's values, newest first.
  const byCurrency = new Map<string, CurrencyValue[]>();
  for (const value of [...values, ...valuesBefore].sort((a, b) => b.date.localeCompare(a.date))) {
    let list = byCurrency.get(value.currency);
    if (!list) byCurrency.set(value.currency, (list = []));
    list.push(value);
  }
  const previousOf = new Map<string, CurrencyValue>();
  for (const list of byCurrency.values()) {
    for (let index = 0; index + 1 < list.length; index++)
      previousOf.set(`${list[index].currency} ${list[index].date}`, list[index + 1]);
  }
  return views.map((view, index) => {
    const previous = dollars[index + 1];
    const dollarChange = previous
      ? {
          previous: { date: previous.date, dollar: Number(previous.dollar) },
          ...changeSince(previous.dollar, stored[index].dollar),
        }
      : { previous: null, change: null, change_percent: null };
    if (!view.rates) return { ...view, ...dollarChange };
    const changes: Record<string, CurrencyChangeView> = {};
    for (const code of Object.keys(view.rates)) {
      const current = byCurrency.get(code)!.find((value) => value.date === view.date)!;
      const earlier = previousOf.get(`${code} ${view.date}`);
      changes[code] = earlier
        ? { previous_date: earlier.date, previous: Number(earlier.rate), ...changeSince(earlier.rate, current.rate) }
        : { previous_date: null, previous: null, change: null, change_percent: null };
    }
    return { ...view, ...dollarChange, changes };
  });
}

/**
 * The rate of the newest stored date (404 when none is stored), which after the bank's afternoon publication is
 * the next rate; with in_force=true the rate in force today. `currency` is `currencies` with one code.
 */
export async function getLatestRate(query: LatestRateQuery = {}): Promise<RateView> {
  const options = readOptionsOf(query);
  parseCurrencyList(options.currencies);
  if (query.in_force === "true") return getRateInForce(ratesToday(), options);
  const rate = await findLatestRate();
  if (!rate) throw notFound("No rate is stored yet; POST /rates/ fetches the current one from the central bank.");
  return describedRate((await buildViews([rate], options))[0], rate);
}

function readOptionsOf({ currency, currencies, include }: LatestRateQuery): RateReadOptions {
  if (currency !== undefined && currencies !== undefined) {
    throw badRequest("Send either currency (one code) or currencies (a list), not both.", [
      { field: "query.currency", message: "must not be sent with currencies" },
    ]);
  }
  return { currencies: currency === undefined ? currencies : parseCurrencyCode(currency), include };
}

/**
 * The rate of exactly `date`; 404 naming the nearest earlier date that has one. With in_force=true, the rate
 * in force on `date`: that of the newest value date on or before it, with `date` the date asked and
 * `value_date` the value date; 404 for a date before the first rate or after both today and the newest
 * value date (the rate in force then is not known yet).
 */
export async function getRateByDate(date: string, options: RateByDateQuery = {}): Promise<RateView> {
  parseCurrencyList(options.currencies);
  if (options.in_force === "true") return getRateInForce(date, options);
  const rate = await findRateByDate(date);
  if (rate) return describedRate((await buildViews([rate], options))[0], rate);
  const earlier = await findLatestRateBefore(date);
  throw notFound(
    earlier
      ? `No rate is stored for ${date}; the nearest earlier date with a rate is ${earlier.date}.`
      : `No rate is stored for ${date} or any earlier date.`,
  );
}

async function getRateInForce(date: string, options: RateReadOptions): Promise<RateView> {
  const rate = await findLatestRateOnOrBefore(date);
  if (!rate) throw notFound(`No rate is stored on or before ${date}: no rate was in force then.`);
  const today = ratesToday();
  if (date > today && date > rate.date) {
    throw notFound(
      `${date} is after today (${today}) and after the newest value date (${rate.date}): the rate in force then is not known yet.`,
    );
  }
  const { dollar, date: valueDate, ...rest } = (await buildViews([rate], options))[0];
  return describedRate({ dollar, date, value_date: valueDate, ...rest }, rate);
}

/**
 * The range GET /rates/history serves. Defaults: end_date is today in RATES_TIMEZONE, start_date is
 * end_date - 30 days. 400 when start_date is after end_date or the range spans more than 3660 days.
 */
export function resolveHistoryRange(query: RateHistoryQuery, today: string): { start: string; end: string } {
  const end = query.end_date ?? today;
  const start = query.start_date ?? addDaysClamped(end, -DEFAULT_HISTORY_SPAN_DAYS);
  const span = daysBetween(start, end);
  if (span < 0) {
    throw badRequest(`start_date ${start} is after end_date ${end}.`, [
      { field: "query.start_date", message: `must not be after end_date (${end})` },
    ]);
  }
  if (span > MAX_HISTORY_SPAN_DAYS) {
    throw badRequest(
      `The range ${start} .. ${end} spans ${span} days; at most ${MAX_HISTORY_SPAN_DAYS} are served per request.`,
      [{ field: "query.start_date", message: `must be at most ${MAX_HISTORY_SPAN_DAYS} days before end_date` }],
    );
  }
  return { start, end };
}

/** The stored rates of a range, newest first, with the range actually used. */
export async function getRateHistory(query: RateHistoryQuery): Promise<RateHistoryView> {
  parseCurrencyList(query.currencies);
  const { start, end } = resolveHistoryRange(query, ratesToday());
  const rates = await listRatesBetween(start, end);
  return { start_date: start, end_date: end, rates: await buildViews(rates, query) };
}

/** Every stored currency with its name, first and last date and number of dates; USD first, then by code. */
export async function listCurrencies(): Promise<{ currencies: CurrencyView[] }> {
  const rows = await summarizeCurrencies();
  const order = (code: string) => (code === DOLLAR ? "" : code);
  return {
    currencies: rows
      .sort((a, b) => order(a.currency).localeCompare(order(b.currency)))
      .map((row) => ({
        code: row.currency,
        name: CURRENCY_NAMES[row.currency] ?? row.currency,
        first_date: row.firstDate,
        last_date: row.lastDate,
        dates: row.dates,
      })),
  };
}

/**
 * Fetches the current rates from the central bank and stores every currency the page shows under its value
 * date. `created` is false when that date already had a dollar rate, which is then refreshed in place (same
 * id). The page is authoritative for the dates it publishes: an imported value that differs is replaced (and
 * the replacement logged), one that agrees is kept with its bid. Nothing is stored when the
 * page cannot be fetched or read, or shows no plausible dollar rate: 504 for a timeout, 502 otherwise.
 * Concurrent calls share one fetch (lib/rates/bcv-client.ts). Every attempt and its outcome is recorded for
 * GET /rates/status (lib/rates/fetch-log.ts).
 */
export async function fetchAndStoreRate(
  trigger: FetchTrigger = "request",
): Promise<{ rate: StoredRateView; created: boolean }> {
  const config = bcvClientConfigFromEnv();
  const startedAt = new Date();
  let published: PublishedRate;
  try {
    published = await fetchOfficialRate(config);
  } catch (error) {
    const kind = error instanceof RateSourceError ? error.kind : "internal";
    await recordFetch(trigger, startedAt, { outcome: "failed", failureKind: kind, detail: (error as Error).message });
    if (!(error instanceof RateSourceError)) throw error;
    const detail = `Could not get the rate from the central bank: ${error.message}. Nothing was stored.`;
    throw error.kind === "timeout" ? gatewayTimeout(detail) : badGateway(detail);
  }
  for (const { currency, reason } of published.skipped) {
    console.warn(`rates: the central bank's page was read without ${currency}: it ${reason}`);
  }
  const { rate, created, replacedImports } = await saveHomePageRates(published.date, published.rates, config.url);
  invalidateRateReads();
  for (const replaced of replacedImports) {
    console.warn(
      `rates: the central bank's page shows ${replaced.homePage} for ${replaced.currency} on ${published.date}; it replaced the imported ${replaced.imported}`,
    );
  }
  await recordFetch(trigger, startedAt, {
    outcome: created ? "stored" : "refreshed",
    valueDate: rate.date,
    dollar: rate.dollar,
    currencies: Object.keys(published.rates),
  });
  return { rate: await toStoredRateView(rate), created };
}
