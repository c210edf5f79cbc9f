import useSWR from "swr";
import { ApiError, request } from "./fetcher";
import type { Rate } from "./types";

export const LATEST_RATE_KEY = "/rates/";

/** The newest stored rate; `null` (not an error) when no rate is stored yet, which the page shows as empty. */
export function useLatestRate() {
  return useSWR<Rate | null, ApiError>(LATEST_RATE_KEY, async (url: string) => {
    try {
      return await request<Rate>(url);
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) return null;
      throw error;
    }
  });
}
