import useSWR from "swr";
import type { ApiError } from "./fetcher";
import { type ConversionQuery, conversionKey } from "./rate-keys";
import type { Conversion } from "./types";

export { type ConversionQuery, conversionKey };

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
