import useSWR from "swr";
import { ApiError, request } from "./fetcher";
import { LATEST_RATE_KEY, latestRateKey, valueIn } from "./rate-keys";
import type { Rate } from "./types";

export { LATEST_RATE_KEY };

/**
 * The newest stored rate; `null` (not an error) when no rate is stored yet, which the page shows as empty.
 * For another currency than the dollar, `dollar` carries that currency's rate (bolívares per unit) on the
 * newest date, and the answer is `null` when that date has none for it.
 */
export function useLatestRate(currency = "USD") {
  const key = latestRateKey(currency);
  return useSWR<Rate | null, ApiError>(key, async (url: string) => {
    try {
      const rate = await request<Rate>(url);
      return currency === "USD" ? rate : valueIn(rate, currency);
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) return null;
      throw error;
    }
  });
}
