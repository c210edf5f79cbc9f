"use client";

import { SWRConfig } from "swr";
import { ApiError, fetcher } from "./fetcher";

/**
 * SWR defaults for the whole dashboard: the shared fetcher, and no retries for answers that will not change
 * by asking again (4xx: not found, unauthorized, invalid input).
 */
export function SwrProvider({ children }: { children: React.ReactNode }) {
  return (
    <SWRConfig
      value={{
        fetcher,
        onErrorRetry(error, _key, _config, revalidate, { retryCount }) {
          if (error instanceof ApiError && error.status >= 400 && error.status < 500) return;
          if (retryCount >= 5) return;
          setTimeout(() => revalidate({ retryCount }), 2_000 * 2 ** retryCount);
        },
      }}
    >
      {children}
    </SWRConfig>
  );
}
