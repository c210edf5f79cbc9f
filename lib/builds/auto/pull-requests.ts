import { badRequest, serviceUnavailable } from "../../http/problem";
import { getBuildsConfig, type RepositoryConfig } from "../config";
import { closePullRequestComment, type PullRequestEnd } from "../forge/comments";
import { isForkHead, listOpenPullRequests } from "../forge/pull-requests";
import { reportsSettled } from "../forge/statuses";
import { fetchPullRef } from "../git/mirrors";
import type { HookResultView } from "../schemas";
import { presentBuild } from "../service";
import { pullRef, sourceBranchOf } from "./pull-refs";
import { forgetBranch, noticeBranchHead } from "./service";

/**
 * Pull and merge request events: GitHub `pull_request`, GitLab `Merge Request Hook`, Gitea and
 * Forgejo `pull_request`. Opening, reopening and new commits build the request's head, fetched from the host's
 * pull ref (refs/pull/<n>/head, GitLab refs/merge-requests/<iid>/head), with auto_build.modules: one live
 * preview per request, the newer replacing the older as for branches. Closing or merging destroys it; where the
 * host's API is configured (`forge`), only once the host no longer lists the request as open.
 * A request from a fork runs anyone's code: it is built only with forge.build_forks.
 */
export type Host = "github" | "gitlab" | "gitea";

/** What the event asks of us. */
export interface PullRequestEvent {
  number: number;
  /** build: opened, reopened, new commits; close: closed or merged; ignore: anything else (labels, edits). */
  intent: "build" | "close" | "ignore";
  /** The host's own word for the action, for the answer's detail. */
  action: string;
  fromFork: boolean;
  sender: string | null;
  /** For a close: whether the request was merged or just closed. */
  closedAs: "closed" | "merged";
  /** The branch the request comes from, when the host names it as a safe branch name. */
  sourceBranch: string | null;
}

const RETRY_AFTER_SECONDS = 30;

export function isPullRequestEvent(host: Host, event: string | null): boolean {
  if (host === "gitlab") return event === "Merge Request Hook";
  // Gitea names new commits pull_request_sync in its event type; its X-Gitea-Event says pull_request.
  return event === "pull_request" || (host === "gitea" && event === "pull_request_sync");
}

export interface HookReply {
  status: 200 | 202;
  result: HookResultView["result"];
  detail: string;
  extra: Partial<HookResultView>;
}

/** Handles a verified pull request event of the repository. */
export async function receivePullRequest(
  repository: RepositoryConfig,
  host: Host,
  payload: Record<string, unknown>,
): Promise<HookReply> {
  const event = readPullRequestEvent(host, payload);
  const ref = pullRef(host, event.number);
  const about = { branch: ref, pull_request: event.number };
  const nothing = (detail: string): HookReply => ({ status: 200, result: "nothing_to_do", detail, extra: about });
  if (!repository.auto_build)
    return nothing(`The repository "${repository.alias}" has no auto_build: pull requests are not followed.`);
  if (!repository.auto_build.pull_requests)
    return nothing(`auto_build.pull_requests is off for "${repository.alias}".`);
  if (event.intent === "ignore") return nothing(`The pull request action "${event.action}" changes no code; ignored.`);

  if (event.intent === "close") {
    // Believed only from the host itself, as a branch deletion is from the repository: a replayed or forged close
    // must not destroy the preview of a pull request that is open.
    const forge = repository.forge;
    if (forge) {
      const listed = await listOpenPullRequests(forge);
      if (!listed.ok) {
        throw serviceUnavailable(
          `The close of pull request #${event.number} could not be checked with the host (${listed.error}); deliver the event again later.`,
          RETRY_AFTER_SECONDS,
        );
      }
      if (listed.pulls.some((pull) => pull.number === event.number))
        return nothing(`Pull request #${event.number} is still open on the host; its preview stays.`);
    }
    const { buildIds, done } = await closePullRequest(repository, host, event.number, event.closedAs);
    void done.catch((error: unknown) =>
      console.error(`builds: closing pull request #${event.number} of "${repository.alias}" failed:`, error),
    );
    if (buildIds.length === 0)
      return nothing(`Pull request #${event.number} was ${event.action}; it had no live preview.`);
    return {
      status: 202,
      result: "destroying",
      detail: `Pull request #${event.number} was ${event.action}: destroying its preview.`,
      extra: { ...about, build_ids: buildIds },
    };
  }

  if (event.fromFork && !repository.forge?.build_forks) {
    return nothing(
      `Pull request #${event.number} comes from a fork: its code is not built unless forge.build_forks is true.`,
    );
  }
  // The head as the host publishes it now: a late delivery builds the newest commit (or nothing new).
  const head = await fetchPullRef(getBuildsConfig(), repository, ref);
  if (!head)
    throw serviceUnavailable(
      `${ref} of "${repository.alias}" could not be fetched; deliver the event again later.`,
      RETRY_AFTER_SECONDS,
    );
  const outcome = await noticeBranchHead(repository, ref, head, "webhook", event.sender, event.sourceBranch);
  const noticed = { ...about, commit_sha: head };
  switch (outcome.result) {
    case "started":
      return {
        status: 202,
        result: "started",
        detail: `Building pull request #${event.number} at ${head.slice(0, 12)}.`,
        extra: { ...noticed, build: await presentBuild(outcome.build), build_ids: [outcome.build.id] },
      };
    case "pending":
      return { status: 202, result: "pending", detail: outcome.detail, extra: noticed };
    case "nothing_to_do":
      return {
        status: 200,
        result: "nothing_to_do",
        detail: outcome.detail,
        extra: { ...noticed, build_ids: outcome.buildIds },
      };
  }
}

/**
 * A pull request is closed, merged or otherwise no longer open: its head is forgotten and its live previews
 * destroyed (in the background: `done` settles once they are).
 */
export async function closePullRequest(
  repository: RepositoryConfig,
  host: Host,
  number: number,
  how: PullRequestEnd,
): Promise<{ buildIds: string[]; done: Promise<void> }> {
  const ref = pullRef(host, number);
  const { buildIds, done } = await forgetBranch(repository, ref);
  const forge = repository.forge;
  if (!forge?.comment) return { buildIds, done };
  // The comment last: after the previews are gone and their own last reports (canceled, say) are written.
  const commented = done
    .then(() => reportsSettled(buildIds))
    .then(() => closePullRequestComment(forge, repository.alias, ref, number, how));
  return { buildIds, done: commented };
}

const BUILD_ACTIONS: Record<Host, readonly string[]> = {
  github: ["opened", "reopened", "synchronize"],
  gitea: ["opened", "reopened", "synchronized"],
  gitlab: ["open", "reopen"],
};
const CLOSE_ACTIONS: Record<Host, readonly string[]> = {
  github: ["closed"],
  gitea: ["closed"],
  gitlab: ["close", "merge"],
};

/** The fields of the event this service reads; 400 naming the field when one is missing or malformed. */
export function readPullRequestEvent(host: Host, payload: Record<string, unknown>): PullRequestEvent {
  const object = (value: unknown) =>
    typeof value === "object" && value !== null ? (value as Record<string, unknown>) : undefined;
  const field = (path: string, message: string) =>
    badRequest(`The pull request event's \`${path}\` ${message}.`, [{ field: `body.${path}`, message }]);
  const text = (value: unknown) =>
    typeof value === "string" && value.trim() !== "" ? value.trim().slice(0, 100) : null;

  if (host === "gitlab") {
    const attributes = object(payload.object_attributes);
    if (!attributes) throw field("object_attributes", "must be an object");
    const number = attributes.iid;
    if (typeof number !== "number" || !Number.isInteger(number) || number < 1)
      throw field("object_attributes.iid", "must be a positive integer");
    const action = typeof attributes.action === "string" ? attributes.action : "";
    // An update carries `oldrev` only when it brought new commits; a title or label edit has none.
    const newCommits = action === "update" && typeof attributes.oldrev === "string";
    const intent =
      BUILD_ACTIONS.gitlab.includes(action) || newCommits
        ? "build"
        : CLOSE_ACTIONS.gitlab.includes(action)
          ? "close"
          : "ignore";
    const source = attributes.source_project_id;
    const target = attributes.target_project_id;
    if (intent === "build" && (typeof source !== "number" || typeof target !== "number")) {
      throw field("object_attributes.source_project_id", "and target_project_id must be project ids");
    }
    const user = object(payload.user);
    const closedAs = action === "merge" || attributes.state === "merged" ? "merged" : "closed";
    return {
      number,
      intent,
      action: action || "(none)",
      fromFork: source !== target,
      sender: text(user?.username) ?? text(user?.name),
      closedAs,
      sourceBranch: sourceBranchOf(attributes.source_branch),
    };
  }

  const pull = object(payload.pull_request);
  if (!pull) throw field("pull_request", "must be an object");
  const number = typeof payload.number === "number" ? payload.number : pull.number;
  if (typeof number !== "number" || !Number.isInteger(number) || number < 1)
    throw field("number", "must be a positive integer");
  const action = typeof payload.action === "string" ? payload.action : "";
  const intent = BUILD_ACTIONS[host].includes(action)
    ? "build"
    : CLOSE_ACTIONS[host].includes(action)
      ? "close"
      : "ignore";
  const fromFork = isForkHead(pull);
  if (intent === "build" && object(object(pull.base)?.repo) === undefined)
    throw field("pull_request.base.repo", "must be an object");
  const sender = object(payload.sender);
  const closedAs = pull.merged === true ? "merged" : "closed";
  return {
    number,
    intent,
    action: action || "(none)",
    fromFork,
    sender: text(sender?.login) ?? text(sender?.username),
    closedAs,
    sourceBranch: sourceBranchOf(object(pull.head)?.ref),
  };
}
