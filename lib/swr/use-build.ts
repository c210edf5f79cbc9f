import useSWR from "swr";
import type { ApiError } from "./fetcher";
import { type Build, IN_PROGRESS_STATUSES } from "./types";

export const buildKey = (id: string) => `/builds/${encodeURIComponent(id)}`;

/** One build with its stages; polls every second while it is in progress so the timeline moves. */
export function useBuild(id: string | null) {
  return useSWR<Build, ApiError>(id ? buildKey(id) : null, {
    refreshInterval: (build) => (build && IN_PROGRESS_STATUSES.includes(build.status) ? 1_000 : 0),
  });
}
