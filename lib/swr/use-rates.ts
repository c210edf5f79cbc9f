import useSWR from "swr";
import type { ApiError } from "./fetcher";
import type { RateHistory } from "./types";

export interface DateRange {
  start_date: string;
  end_date: string;
}

export function ratesHistoryKey(range: DateRange): string {
  const query = new URLSearchParams({ start_date: range.start_date, end_date: range.end_date });
  return `/rates/history?${query}`;
}

/** The stored rates of a date range, newest first. `null` disables the request. */
export function useRates(range: DateRange | null) {
  return useSWR<RateHistory, ApiError>(range ? ratesHistoryKey(range) : null, {
    // Moving between ranges keeps the previous chart on screen instead of flashing an empty panel.
    keepPreviousData: true,
  });
}

/** Whether an SWR key belongs to the rates resources, to revalidate them all after a fetch. */
export const isRatesKey = (key: unknown) => typeof key === "string" && key.startsWith("/rates");
