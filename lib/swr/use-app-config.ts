import useSWR from "swr";
import type { ApiError } from "./fetcher";
import type { AppConfig } from "./types";

/** The build service's configuration: repositories (with readiness and modules), TTL choices, limits. */
export function useAppConfig(enabled = true) {
  return useSWR<AppConfig, ApiError>(enabled ? "/app-config" : null, {
    // Readiness changes when a mirror's fetch succeeds or fails; a slow poll keeps the form honest.
    refreshInterval: 30_000,
  });
}
