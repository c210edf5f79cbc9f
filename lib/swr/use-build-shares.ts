import useSWR from "swr";
import type { ApiError } from "./fetcher";
import { buildKey } from "./use-build";

export interface PreviewShare {
  id: string;
  build_id: string;
  /** branch: opens the branch's newest live build; build: this build only. */
  scope: "branch" | "build";
  created_at: string;
  expires_at: string;
  created_by: string;
}

export const buildSharesKey = (id: string) => `${buildKey(id)}/shares`;

/** A build's live share links, for its creator or an admin (`null`: not asked). */
export function useBuildShares(id: string | null) {
  return useSWR<{ shares: PreviewShare[] }, ApiError>(id ? buildSharesKey(id) : null);
}
