import type { Rate } from "./types";

/**
 * The API paths the rate panels read, as SWR keys, and how an answer becomes what a panel shows. Kept apart
 * from the hooks (no React, no SWR) so the server can prepare the same entries for the first paint
 * (lib/rates/first-paint.ts) and the hooks find them under the keys they ask for.
 */

export interface DateRange {
  start_date: string;
  end_date: string;
}

export interface ConversionQuery {
  amount: string;
  from: string;
  to: string;
  date?: string;
}

export const conversionKey = (query: ConversionQuery) =>
  `/convert?${new URLSearchParams({ amount: query.amount, from: query.from, to: query.to, ...(query.date ? { date: query.date } : {}) })}`;

/** What the converter converts before anything is typed: 100 of the card's currency into bolívares. */
export const DEFAULT_CONVERSION = { amount: "100", to: "VES" } as const;

export const LATEST_RATE_KEY = "/rates/";
export const RATE_STATUS_KEY = "/rates/status";
export const CURRENCIES_KEY = "/currencies";

/** The newest published rate: after the bank's afternoon publication, the next one (lib/rates/in-force.ts). */
export const latestRateKey = (currency = "USD") =>
  currency === "USD" ? LATEST_RATE_KEY : `${LATEST_RATE_KEY}?currencies=${currency}`;

/** The rate in force today in Caracas: the one every surface for people shows as the rate. */
export const rateInForceKey = (currency = "USD") =>
  `${LATEST_RATE_KEY}?in_force=true${currency === "USD" ? "" : `&currencies=${currency}`}`;

/**
 * GET /rates/?in_force=true's answer as the card shows it: in `currency`, with `date` the value date (the API's
 * `date` is today, its `value_date` the value date in force); null when that date has no rate of the currency.
 */
export function rateInForceIn(answer: Rate, currency: string): Rate | null {
  const rate = currency === "USD" ? answer : valueIn(answer, currency);
  return rate && { ...rate, date: answer.value_date ?? answer.date, in_force: true };
}

/** The newest published rate when it is the next one (not in force yet), in `currency`; null otherwise. */
export function nextRateIn(answer: Rate, currency: string): Rate | null {
  if (answer.in_force !== false) return null;
  return currency === "USD" ? answer : valueIn(answer, currency);
}

function ratesHistoryQuery(range: DateRange, currency: string): URLSearchParams {
  const query = new URLSearchParams({ start_date: range.start_date, end_date: range.end_date });
  if (currency !== "USD") query.set("currencies", currency);
  return query;
}

/**
 * The history the chart and table read, with include=change: each rate carries its previous stored rate, so
 * the oldest row of a range has its change too (its previous rate lies before the range, maybe months back),
 * the same one the latest rate card shows.
 */
export function ratesHistoryKey(range: DateRange, currency = "USD"): string {
  const query = ratesHistoryQuery(range, currency);
  query.set("include", "change");
  return `/rates/history?${query}`;
}

/**
 * The same range as a file, streamed by the server (GET /rates/history?format=csv): the dollar's column, and
 * the currency's after it. Without include=change, which the CSV export refuses (400).
 */
export function ratesCsvUrl(range: DateRange, currency = "USD"): string {
  return ratesFileUrl(range, currency, "csv");
}

/** The history as a file: `csv` for programs and English spreadsheets, `xlsx` for a spreadsheet in any language. */
export function ratesFileUrl(range: DateRange, currency: string, format: "csv" | "xlsx"): string {
  const query = ratesHistoryQuery(range, currency);
  query.set("format", format);
  return `/rates/history?${query}`;
}

/**
 * A rate with `dollar` replaced by another currency's rate of the same date (read with `currencies`), so the
 * card, chart and table draw any currency as they draw the dollar; null when that date has none for it. Read
 * with include=change, `previous` becomes that currency's previous rate (its own previous value date).
 */
export function valueIn(rate: Rate, currency: string): Rate | null {
  const value = rate.rates?.[currency];
  if (value === undefined) return null;
  const change = rate.changes?.[currency];
  // What the answer says of the rate (in force today, when first stored) is said of the date, any currency.
  const about = {
    ...(rate.in_force !== undefined && { in_force: rate.in_force }),
    ...(rate.published_at !== undefined && { published_at: rate.published_at }),
  };
  if (!change) return { date: rate.date, dollar: value, ...about };
  const previous =
    change.previous_date !== null && change.previous !== null
      ? { date: change.previous_date, dollar: change.previous }
      : null;
  return {
    date: rate.date,
    dollar: value,
    ...about,
    previous,
    change: change.change,
    change_percent: change.change_percent,
  };
}
