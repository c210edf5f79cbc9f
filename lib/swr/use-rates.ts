import useSWR from "swr";
import { type ApiError, request } from "./fetcher";
import { type DateRange, ratesCsvUrl, ratesFileUrl, ratesHistoryKey, valueIn } from "./rate-keys";
import type { RateHistory } from "./types";

// The server names the CSV file after the currency and its first and last dates.
export { type DateRange, ratesCsvUrl, ratesFileUrl, ratesHistoryKey, valueIn };

/**
 * The stored rates of a date range, newest first, in bolívares per unit of `currency` (the dollar by
 * default; other currencies only on the dates that have them). `null` disables the request.
 */
export function useRates(range: DateRange | null, currency = "USD") {
  return useSWR<RateHistory, ApiError>(
    range ? ratesHistoryKey(range, currency) : null,
    async (url: string) => {
      const history = await request<RateHistory>(url);
      if (currency === "USD") return history;
      return {
        ...history,
        rates: history.rates.map((rate) => valueIn(rate, currency)).filter((rate) => rate !== null),
      };
    },
    {
      // Moving between ranges keeps the previous chart on screen instead of flashing an empty panel.
      keepPreviousData: true,
    },
  );
}

/**
 * Whether an SWR key reads stored rates (the rates, the currencies that have them, conversions), to
 * revalidate them all after a fetch or an import.
 */
export const isRatesKey = (key: unknown) =>
  typeof key === "string" && (key.startsWith("/rates") || key.startsWith("/currencies") || key.startsWith("/convert"));
