import type { BuildStatus } from "./types";

/**
 * The API path the builds panel reads, as an SWR key. Kept apart from the hooks (no React, no SWR) so the server
 * can prepare the same entry for the first paint (lib/builds/first-paint.ts) under the key the hooks ask for.
 */
export interface BuildsFilter {
  status?: BuildStatus;
  limit?: number;
}

export function buildsKey(filter: BuildsFilter = {}): string {
  const query = new URLSearchParams();
  if (filter.status) query.set("status", filter.status);
  query.set("limit", String(filter.limit ?? 100));
  return `/builds?${query}`;
}
