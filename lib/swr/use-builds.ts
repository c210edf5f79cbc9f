import useSWR from "swr";
import { type BuildsFilter, buildsKey } from "./build-keys";
import { type ApiError, request } from "./fetcher";
import { type BuildList, type BuildSummary, IN_PROGRESS_STATUSES } from "./types";

export { type BuildsFilter, buildsKey };

export const hasBuildInProgress = (builds: BuildSummary[] | undefined) =>
  builds?.some((build) => IN_PROGRESS_STATUSES.includes(build.status)) ?? false;

/** Reads a page of builds; a bare array (no paging information) is read as the only page. */
async function fetchBuildList(url: string): Promise<BuildList> {
  const body = await request<BuildList | BuildSummary[]>(url);
  return Array.isArray(body) ? { builds: body, next_cursor: null } : { ...body, next_cursor: body.next_cursor ?? null };
}

/**
 * Builds newest first, optionally of one status. Polls every 2 s while any listed build is in progress, and
 * every 15 s otherwise: builds expire and other people start builds without this page doing anything.
 */
export function useBuilds(filter: BuildsFilter | null = {}) {
  return useSWR<BuildList, ApiError>(filter ? buildsKey(filter) : null, fetchBuildList, {
    keepPreviousData: true,
    refreshInterval: (list) => (hasBuildInProgress(list?.builds) ? 2_000 : 15_000),
  });
}

/** Whether an SWR key belongs to the builds resources, to revalidate them after a change. */
export const isBuildsKey = (key: unknown) => typeof key === "string" && key.startsWith("/builds");
