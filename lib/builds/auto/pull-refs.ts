import { refProblem } from "../names";

/**
 * The refs under which the git hosts publish a pull request's head: GitHub and Gitea/Forgejo
 * `refs/pull/<n>/head`, GitLab `refs/merge-requests/<iid>/head`. An automatic build of a pull request follows
 * that ref the way a branch build follows its branch: the ref is its `ref`, and AutoBranchHead's `branch`.
 */
export const PULL_REF_PATTERN = /^refs\/(pull|merge-requests)\/([1-9][0-9]{0,9})\/head$/;

export function pullRef(host: "github" | "gitlab" | "gitea", number: number): string {
  return host === "gitlab" ? `refs/merge-requests/${number}/head` : `refs/pull/${number}/head`;
}

/** The pull request's number when the ref is a pull request's head, else null. */
export function pullNumberOf(ref: string): number | null {
  const match = PULL_REF_PATTERN.exec(ref);
  return match ? Number(match[2]) : null;
}

/** The branch a pull request comes from, as its host's payload names it; null unless it is a safe branch name. */
export function sourceBranchOf(value: unknown): string | null {
  return typeof value === "string" && refProblem(value) === null ? value : null;
}
