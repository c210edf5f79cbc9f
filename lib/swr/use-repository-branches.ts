import useSWR from "swr";
import type { ApiError } from "./fetcher";

export interface BranchList {
  repository: string;
  default_ref: string;
  branches: { name: string; commit_sha: string }[];
  truncated: boolean;
}

export const repositoryBranchesKey = (alias: string) =>
  `/builds/repositories/${encodeURIComponent(alias)}/branches?limit=500`;

/** A repository's branches from its mirror, offered as a build's ref is typed (`null`: not asked). */
export function useRepositoryBranches(alias: string | null) {
  return useSWR<BranchList, ApiError>(alias ? repositoryBranchesKey(alias) : null, {
    // A fetch of the repository stands behind each answer: once per form is enough.
    revalidateOnFocus: false,
  });
}
