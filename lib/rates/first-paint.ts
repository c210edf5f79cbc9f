import { HttpProblem } from "../http/problem";
import {
  CURRENCIES_KEY,
  conversionKey,
  type DateRange,
  DEFAULT_CONVERSION,
  latestRateKey,
  nextRateIn,
  RATE_STATUS_KEY,
  rateInForceIn,
  rateInForceKey,
  ratesHistoryKey,
  valueIn,
} from "../swr/rate-keys";
import { convertAmount } from "./convert";
import { ratesToday } from "./in-force";
import { getLatestRate, getRateHistory, listCurrencies } from "./service";
import { getRateStatus } from "./status";

/**
 * What the dashboard's rate panels would ask the API for first, read on the server while it renders the page,
 * as SWR's fallback keyed by the same API paths: the first paint then carries the latest rate, its change, when
 * it was fetched and the rows of the history table, instead of empty panels waiting for scripts and requests. The
 * panels still revalidate from the API once the page runs. A read that fails, or answers nothing, is left out:
 * its panel asks for it as it would without this.
 */
export async function loadRatesForFirstPaint({
  currency,
  range,
}: {
  currency: string;
  range: DateRange | null;
}): Promise<Record<string, unknown>> {
  const other = currency === "USD" ? {} : { currencies: currency };
  // At the rates in force today, as the converter asks without a date.
  const defaultConversion = { ...DEFAULT_CONVERSION, from: currency, date: ratesToday() };
  const history = (range: DateRange) =>
    read(ratesHistoryKey(range, currency), async () => {
      // The same answer as the key asks for: with each rate's previous (include=change).
      const answer = await getRateHistory({ ...range, ...other, include: "change" });
      if (currency === "USD") return answer;
      return {
        ...answer,
        rates: answer.rates.map((rate) => valueIn(rate, currency)).filter((rate) => rate !== null),
      };
    });
  const entries = await Promise.all([
    // The card's rate in force today, and the next one beside it: each as its hook makes of the API's answer.
    read(rateInForceKey(currency), () =>
      orNullWhenNotFound(async () => rateInForceIn(await getLatestRate({ ...other, in_force: "true" }), currency)),
    ),
    read(latestRateKey(currency), () =>
      orNullWhenNotFound(async () => nextRateIn(await getLatestRate(other), currency)),
    ),
    read(RATE_STATUS_KEY, getRateStatus),
    read(CURRENCIES_KEY, listCurrencies),
    // The converter's answer before anything is typed, so the first HTML shows it.
    read(conversionKey(defaultConversion), async () => {
      try {
        return await convertAmount(defaultConversion);
      } catch (error) {
        // No rate of that currency stored: the converter asks, as it would without this, and says so.
        if (error instanceof HttpProblem && error.status === 400) return undefined;
        throw error;
      }
    }),
    range && history(range),
  ]);
  // The rate card's change: the latest date's row, which names the previous rate.
  const latest = entries[0]?.[1] as { date?: string } | null | undefined;
  if (latest?.date) entries.push(await history({ start_date: latest.date, end_date: latest.date }));
  return Object.fromEntries(entries.filter((entry): entry is [string, unknown] => Boolean(entry)));
}

/** No rate stored (or in force) yet: the card's empty state, as the hooks make of the API's 404. */
async function orNullWhenNotFound<T>(load: () => Promise<T>): Promise<T | null> {
  try {
    return await load();
  } catch (error) {
    if (error instanceof HttpProblem && error.status === 404) return null;
    throw error;
  }
}

async function read(key: string, load: () => Promise<unknown>): Promise<[string, unknown] | undefined> {
  try {
    const value = await load();
    if (value === undefined) return undefined;
    // Through JSON as the API sends it: dates as text, no undefined fields, nothing but plain objects.
    return [key, JSON.parse(JSON.stringify(value))];
  } catch (error) {
    console.warn(`dashboard: ${key} not read for the first paint: ${(error as Error).message}`);
    return undefined;
  }
}

/**
 * The price list's rates (/prices): one unit of each currency in bolívares at the rate in force on `date`, as
 * GET /convert answers it, keyed as the list asks; `missing` names the currencies with no rate stored on or
 * before that date (the API's 400), which the list says at once instead of waiting for its own request.
 */
export async function loadPriceRatesForFirstPaint<Currency extends string>(
  currencies: readonly Currency[],
  date: string,
): Promise<{ fallback: Record<string, unknown>; missing: Currency[] }> {
  const missing: Currency[] = [];
  const entries = await Promise.all(
    currencies.map((from) => {
      const query = { amount: "1", from, to: "VES", date };
      return read(conversionKey(query), async () => {
        try {
          return await convertAmount(query);
        } catch (error) {
          if (!(error instanceof HttpProblem && error.status === 400)) throw error;
          missing.push(from);
          return undefined;
        }
      });
    }),
  );
  // The next rates, published ahead, which the list says beside today's.
  const nextRates = await Promise.all(
    currencies.map((currency) =>
      read(latestRateKey(currency), () =>
        orNullWhenNotFound(async () =>
          nextRateIn(await getLatestRate(currency === "USD" ? {} : { currencies: currency }), currency),
        ),
      ),
    ),
  );
  // Nothing in force yet, only a next rate (a first fetch in the evening): the list prices at that one, as it asks
  // once it runs (components/rates/price-list.tsx), and the currency is not missing.
  const ahead: [string, unknown][] = [];
  for (const [index, currency] of currencies.entries()) {
    const next = nextRates[index]?.[1] as { date?: string } | null | undefined;
    if (!missing.includes(currency) || !next?.date) continue;
    const query = { amount: "1", from: currency, to: "VES", date: next.date };
    const conversion = await read(conversionKey(query), () => convertAmount(query));
    if (!conversion) continue;
    ahead.push(conversion, [rateInForceKey(currency), null]);
    missing.splice(missing.indexOf(currency), 1);
  }
  const found = [...entries, ...nextRates, ...ahead].filter((entry) => entry !== undefined);
  return { fallback: Object.fromEntries(found), missing };
}
