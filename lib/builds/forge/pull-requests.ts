import { sourceBranchOf } from "../auto/pull-refs";
import type { ForgeConfig, ForgeKind } from "../config";
import { callForge, type ForgeRequest } from "./api";

/**
 * The open pull requests of a repository, as its git host lists them (polling finds pull requests
 * too). GitHub GET /repos/{o}/{r}/pulls?state=open and Gitea GET /repos/{o}/{r}/pulls?state=open give pull
 * requests with `number`, `head.sha`, `head.repo` (null once a fork is deleted) and `base.repo`; GitLab GET
 * /projects/{id}/merge_requests?state=opened gives merge requests with `iid`, `sha` (the head),
 * `source_project_id` and `target_project_id`. Read page by page, up to MAX_PAGES.
 */
export interface OpenPullRequest {
  number: number;
  /** The head commit the host reports; null when it gave none. */
  headSha: string | null;
  fromFork: boolean;
  /** The branch it comes from (GitLab source_branch, head.ref elsewhere); null when not a safe branch name. */
  sourceBranch: string | null;
}

export type OpenPullRequestList = { ok: true; pulls: OpenPullRequest[] } | { ok: false; error: string };

// GitHub and GitLab serve at most 100 a page; Gitea's default maximum is 50.
const PAGE_SIZE: Record<ForgeKind, number> = { github: 100, gitlab: 100, gitea: 50 };
// A repository with more open pull requests than this is not read to the end: the listing is then incomplete,
// and an incomplete listing must not be taken as "the others were closed".
const MAX_PAGES = 10;

export function openPullRequestsRequest(forge: ForgeConfig, page: number): ForgeRequest {
  const size = PAGE_SIZE[forge.kind];
  if (forge.kind === "gitlab") {
    return {
      method: "GET",
      path: `/projects/${encodeURIComponent(forge.project)}/merge_requests?state=opened&per_page=${size}&page=${page}`,
    };
  }
  const sizeParameter = forge.kind === "gitea" ? "limit" : "per_page";
  return { method: "GET", path: `/repos/${forge.project}/pulls?state=open&${sizeParameter}=${size}&page=${page}` };
}

/**
 * Every open pull request, or why they could not all be read (an error, an answer that is not a list, more
 * than MAX_PAGES pages). Never throws.
 */
export async function listOpenPullRequests(forge: ForgeConfig): Promise<OpenPullRequestList> {
  const pulls: OpenPullRequest[] = [];
  for (let page = 1; page <= MAX_PAGES; page++) {
    const result = await callForge(forge, openPullRequestsRequest(forge, page));
    if (!result.ok) return { ok: false, error: result.error ?? "the host did not answer" };
    if (!Array.isArray(result.response))
      return { ok: false, error: `page ${page} of the open pull requests is not a JSON list` };
    for (const item of result.response) {
      const pull = readListedPullRequest(forge.kind, item);
      if (pull) pulls.push(pull);
    }
    if (result.response.length < PAGE_SIZE[forge.kind]) return { ok: true, pulls };
  }
  return {
    ok: false,
    error: `more than ${MAX_PAGES * PAGE_SIZE[forge.kind]} open pull requests: the listing stops there`,
  };
}

const SHA = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

function object(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : undefined;
}

/** One item of the host's list; null when it has no usable number (skipped, not fatal). */
function readListedPullRequest(kind: ForgeKind, item: unknown): OpenPullRequest | null {
  const pull = object(item);
  if (!pull) return null;
  const number = kind === "gitlab" ? pull.iid : pull.number;
  if (typeof number !== "number" || !Number.isInteger(number) || number < 1) return null;
  const sha = kind === "gitlab" ? pull.sha : object(pull.head)?.sha;
  const headSha = typeof sha === "string" && SHA.test(sha) ? sha : null;
  if (kind === "gitlab")
    return {
      number,
      headSha,
      fromFork: pull.source_project_id !== pull.target_project_id,
      sourceBranch: sourceBranchOf(pull.source_branch),
    };
  return { number, headSha, fromFork: isForkHead(pull), sourceBranch: sourceBranchOf(object(pull.head)?.ref) };
}

/**
 * Whether a GitHub or Gitea pull request's head lives in another repository than its base: a fork's head
 * repository is another one, and a deleted fork has none at all (null), which is not ours either.
 */
export function isForkHead(pull: Record<string, unknown>): boolean {
  const headRepo = object(object(pull.head)?.repo);
  const baseRepo = object(object(pull.base)?.repo);
  const idOf = (repo: Record<string, unknown> | undefined) => repo?.id ?? repo?.full_name ?? null;
  return headRepo === undefined || baseRepo === undefined || idOf(headRepo) !== idOf(baseRepo);
}
