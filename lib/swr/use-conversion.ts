import useSWR from "swr";
import type { ApiError } from "./fetcher";
import type { Conversion } from "./types";

export interface ConversionQuery {
  amount: string;
  from: string;
  to: string;
  date?: string;
}

export const conversionKey = (query: ConversionQuery) =>
  `/convert?${new URLSearchParams({ amount: query.amount, from: query.from, to: query.to, ...(query.date ? { date: query.date } : {}) })}`;

/**
 * GET /convert for one amount, pair and date; `null` asks nothing (an amount that cannot be read). The
 * previous answer stays on screen while the next one loads, so typing does not flash the result away.
 */
export function useConversion(query: ConversionQuery | null) {
  return useSWR<Conversion, ApiError>(query ? conversionKey(query) : null, {
    keepPreviousData: true,
    shouldRetryOnError: false,
  });
}
