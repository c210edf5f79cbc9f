import useSWR from "swr";
import type { ApiError } from "./fetcher";
import { RATE_STATUS_KEY } from "./rate-keys";
import type { RateStatus } from "./types";

export { RATE_STATUS_KEY };

/**
 * Whether the stored rates are current (GET /rates/status). Starts with "/rates", so a fetch or an import
 * revalidates it with the rates; polled every minute, as the publication hour passes while the page is open.
 */
export function useRateStatus() {
  return useSWR<RateStatus, ApiError>(RATE_STATUS_KEY, { refreshInterval: 60_000 });
}
