import useSWR from "swr";
import type { BuildErrorListView } from "../builds/schemas";
import type { ApiError } from "./fetcher";

/** The errors found in builds' logs, grouped across builds (GET /builds/errors); refreshed every half minute. */
export function useBuildErrors() {
  return useSWR<BuildErrorListView, ApiError>("/builds/errors?limit=100", { refreshInterval: 30_000 });
}
