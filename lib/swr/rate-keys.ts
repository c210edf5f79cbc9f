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

export const LATEST_RATE_KEY = "/rates/";
export const RATE_STATUS_KEY = "/rates/status";
export const CURRENCIES_KEY = "/currencies";

export const latestRateKey = (currency = "USD") => (currency === "USD" ? LATEST_RATE_KEY : `${LATEST_RATE_KEY}?currencies=${currency}`);

export function ratesHistoryKey(range: DateRange, currency = "USD"): string {
  const query = new URLSearchParams({ start_date: range.start_date, end_date: range.end_date });
  if (currency !== "USD") query.set("currencies", currency);
  return `/rates/history?${query}`;
}

/**
 * A rate with `dollar` replaced by another currency's rate of the same date (read with `currencies`), so the
 * card, chart and table draw any currency as they draw the dollar; null when that date has none for it.
 */
export function valueIn(rate: Rate, currency: string): Rate | null {
  const value = rate.rates?.[currency];
  return value === undefined ? null : { date: rate.date, dollar: value };
}
