import useSWR from "swr";
import { ApiError, request } from "./fetcher";
import { LATEST_RATE_KEY, latestRateKey, nextRateIn, rateInForceIn, rateInForceKey } from "./rate-keys";
import type { Rate } from "./types";

export { LATEST_RATE_KEY };

/** A rate read that answers `null` (not an error) when there is none (404), which the page shows as empty. */
function useRateRead(key: string, shown: (answer: Rate) => Rate | null) {
  return useSWR<Rate | null, ApiError>(key, async (url: string) => {
    try {
      return shown(await request<Rate>(url));
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) return null;
      throw error;
    }
  });
}

/**
 * The rate in force today in Caracas (GET /rates/?in_force=true), with `date` its value date; `null` when no rate
 * is in force yet. For another currency than the dollar, `dollar` carries that currency's rate (bolívares per
 * unit) on that value date, and the answer is `null` when that date has none for it.
 */
export function useRateInForce(currency = "USD") {
  return useRateRead(rateInForceKey(currency), (answer) => rateInForceIn(answer, currency));
}

/** The next rate, published ahead of its value date (the bank's afternoon publication); `null` when there is none. */
export function useNextRate(currency = "USD") {
  return useRateRead(latestRateKey(currency), (answer) => nextRateIn(answer, currency));
}

/**
 * The value date of the next rate when no rate of `currency` is in force yet (only a rate published ahead is
 * stored, as after a first fetch in the evening), which the converter and the price list then use and name;
 * undefined otherwise, and while either read loads.
 */
export function useNextDateWhenNoneInForce(currency = "USD"): string | undefined {
  const inForce = useRateInForce(currency);
  const next = useNextRate(currency);
  return inForce.data === null && next.data ? next.data.date : undefined;
}
