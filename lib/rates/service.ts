import { getEnv } from "../env";
import { badGateway, badRequest, gatewayTimeout, notFound } from "../http/problem";
import { fetchOfficialRate, RateSourceError, type PublishedRate } from "./bcv-client";
import { addDaysClamped, daysBetween, todayIn } from "./dates";
import { invalidateRateReads } from "./read-cache";
import {
  findLatestRate,
  findLatestRateBefore,
  findRateByDate,
  listRatesBetween,
  saveRate,
  type StoredRate,
} from "./repository";
import {
  DEFAULT_HISTORY_SPAN_DAYS,
  MAX_HISTORY_SPAN_DAYS,
  type RateHistoryQuery,
  type RateHistoryView,
  type RateView,
  type StoredRateView,
} from "./schemas";

// Storage keeps the published decimal text; JSON carries it as a number.
export function toRateView(rate: StoredRate): RateView {
  return { dollar: Number(rate.dollar), date: rate.date };
}

export function toStoredRateView(rate: StoredRate): StoredRateView {
  return { id: rate.id, ...toRateView(rate) };
}

/** The rate of the newest stored date; 404 when none is stored. */
export async function getLatestRate(): Promise<RateView> {
  const rate = await findLatestRate();
  if (!rate) throw notFound("No rate is stored yet; POST /rates/ fetches the current one from the central bank.");
  return toRateView(rate);
}

/** The rate of exactly `date`; 404 naming the nearest earlier date that has one. */
export async function getRateByDate(date: string): Promise<RateView> {
  const rate = await findRateByDate(date);
  if (rate) return toRateView(rate);
  const earlier = await findLatestRateBefore(date);
  throw notFound(
    earlier
      ? `No rate is stored for ${date}; the nearest earlier date with a rate is ${earlier.date}.`
      : `No rate is stored for ${date} or any earlier date.`,
  );
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
  const { start, end } = resolveHistoryRange(query, todayIn(getEnv().RATES_TIMEZONE));
  const rates = await listRatesBetween(start, end);
  return { start_date: start, end_date: end, rates: rates.map(toRateView) };
}

/**
 * Fetches the current rate from the central bank and stores it under its value date. `created` is false
 * when that date already had a rate, which is then refreshed in place (same id). Nothing is stored when
 * the page cannot be fetched or read: 504 for a timeout, 502 otherwise.
 */
export async function fetchAndStoreRate(): Promise<{ rate: StoredRateView; created: boolean }> {
  let published: PublishedRate;
  try {
    published = await fetchOfficialRate();
  } catch (error) {
    if (!(error instanceof RateSourceError)) throw error;
    const detail = `Could not get the rate from the central bank: ${error.message}. Nothing was stored.`;
    throw error.kind === "timeout" ? gatewayTimeout(detail) : badGateway(detail);
  }
  const { rate, created } = await saveRate(published.date, published.dollar);
  invalidateRateReads();
  return { rate: toStoredRateView(rate), created };
}
