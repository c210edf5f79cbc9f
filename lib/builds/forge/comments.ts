import { processWide } from "../../server/process-wide";
import type { ForgeConfig } from "../config";
import { listAutomaticBuildsOfBranch } from "../repository";
import { AUTOMATIC_TRIGGERS } from "../schemas";
import { BUILD_STATUSES, type BuildStatus } from "../status";
import { callForge, editCommentRequest, newCommentRequest } from "./api";
import { findPullRequestComment, listForgeReports, recordForgeReport, savePullRequestComment } from "./reports";

/**
 * The one comment on a pull request that shows its preview (forge.comment): made by the first build of the
 * request, then edited in place at every change of what it says (queued, building, running, sleeping, failed,
 * lost, canceled, expired, destroyed; closed by lib/builds/auto/pull-requests.ts), so the conversation gets one
 * message, not one per push, and that message is true of the preview now.
 * Only the request's newest build writes it: an older build canceled because a newer one replaced it must not
 * overwrite the newer one's state.
 */
const globalForComments = processWide<{ pullRequestCommentChains?: Map<string, Promise<void>> }>(
  "pullRequestCommentChains",
  () => ({}),
);

/**
 * What the comment says of the preview. More than the commit status knows: a status is the build's verdict on
 * the commit and stays `success` when a passed preview later sleeps, expires or is destroyed; the comment tells
 * where the preview is now.
 */
export type CommentState =
  | "queued"
  | "building"
  | "running"
  | "sleeping"
  | "failure"
  | "lost"
  | "canceled"
  | "expired"
  | "destroyed";

/** The states after which the preview will not run again. */
export const ENDED_COMMENT_STATES: readonly CommentState[] = ["failure", "lost", "canceled", "expired", "destroyed"];

/** What the build's row says of why it ended: the comment's wording comes from it. */
export interface BuildEnding {
  failureStage: string | null;
  failureMessage: string | null;
  /** When its time to live ends or ended; null for a build that never ran. */
  expiresAt: Date | null;
}

/** The comment's state for a build that moved to `status`; null for a passing status (destroying). */
export function commentStateOf(status: BuildStatus, build: BuildEnding, now = new Date()): CommentState | null {
  switch (status) {
    case "queued":
      return "queued";
    case "checking_out":
    case "installing":
    case "testing":
    case "starting":
      return "building";
    case "running":
      return "running";
    case "sleeping":
      return "sleeping";
    case "failed":
      return build.failureStage === "recovery" ? "lost" : "failure";
    case "canceled":
      return "canceled";
    case "expired":
      return "expired";
    case "destroying":
      return null;
    case "destroyed":
      // A destroyed build keeps why it ended before: failed, canceled (it never ran), past its time to live; or
      // it was running or sleeping and someone destroyed it.
      if (build.failureStage !== null) return build.failureStage === "recovery" ? "lost" : "failure";
      if (build.expiresAt === null) return "canceled";
      return build.expiresAt.getTime() <= now.getTime() ? "expired" : "destroyed";
  }
}

export interface CommentSubject extends BuildEnding {
  buildId: string;
  seq: number;
  alias: string;
  ref: string;
  number: number;
  commitSha: string;
  /** Until when the build's page and logs are kept (retention_days after it ended); null while it is live. */
  keptUntil: Date | null;
  /** With a gateway, the pull request's own name (pr-<n>--<alias>), which survives its pushes. */
  previewUrl?: string | null;
}

/** "2026-11-24 18:30 UTC": the comment is read by people in any time zone. */
function utc(date: Date): string {
  return `${date.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

function words(state: CommentState, subject: CommentSubject): string {
  switch (state) {
    case "queued":
      return "⏳ queued";
    case "building":
      return "🔨 building";
    case "running":
      return subject.previewUrl ? `✅ the preview is running at ${subject.previewUrl}` : "✅ the preview is running";
    case "sleeping":
      return "💤 the preview is sleeping (stopped, its data kept); it can be woken from the build's page";
    case "failure":
      // A build that reached running (it has an expiry) failed later: its runtime died, or did not wake.
      if (subject.expiresAt !== null && subject.failureStage === "start")
        return "❌ the preview stopped: its runtime exited while it was running";
      if (subject.failureStage === "wake") return "❌ the preview did not come back when it was woken";
      return `❌ failed at stage ${subject.failureStage ?? "unknown"}`;
    case "lost":
      // The service's own words (a restart, a lost host): never a build's output.
      return `⚠️ lost: ${subject.failureMessage ?? "the build service stopped during the build; it was not resumed."}`;
    case "canceled":
      return "⏹️ canceled";
    case "expired":
      return `⌛ expired: its time to live ended${subject.expiresAt ? ` at ${utc(subject.expiresAt)}` : ""}, so the preview was destroyed`;
    case "destroyed":
      return "🗑️ the preview was destroyed on request, before its time to live ended";
  }
}

export function commentText(subject: CommentSubject, state: CommentState, link: string | null): string {
  const where = link ? ` — [build ${subject.buildId}](${link})` : ` — build ${subject.buildId}`;
  const kept =
    ENDED_COMMENT_STATES.includes(state) && subject.keptUntil
      ? `. Its page and logs are kept until ${utc(subject.keptUntil)}.`
      : "";
  return `**Preview** of \`${subject.commitSha.slice(0, 12)}\`: ${words(state, subject)}${where}${kept}\n\n<sub>bcv-runbot: this comment is edited as new commits are built.</sub>`;
}

/** Writes the pull request's comment for this build's state, one pull request's comments at a time. */
export function updatePullRequestComment(
  forge: ForgeConfig,
  subject: CommentSubject,
  state: CommentState,
  link: string | null,
): Promise<void> {
  return inCommentOrder(subject.alias, subject.number, () => writeComment(forge, subject, state, link));
}

/** Runs `work` after the writes to the pull request's comment queued before it. Never rejects. */
function inCommentOrder(alias: string, number: number, work: () => Promise<void>): Promise<void> {
  const chains = (globalForComments.pullRequestCommentChains ??= new Map<string, Promise<void>>());
  const key = `${alias}#${number}`;
  const next = (chains.get(key) ?? Promise.resolve()).then(work).catch((error: unknown) => {
    console.error(`builds: the comment on ${key} could not be written:`, error);
  });
  chains.set(key, next);
  void next.finally(() => {
    if (chains.get(key) === next) chains.delete(key);
  });
  return next;
}

/** How a pull request stopped being open: the host's event says closed or merged; a poll only sees it gone. */
export type PullRequestEnd = "closed" | "merged" | "no longer open";

export function closedCommentText(number: number, how: PullRequestEnd): string {
  const said = how === "no longer open" ? "is no longer open" : `was ${how}`;
  return `**Preview**: 🗑️ pull request #${number} ${said}, so its preview was destroyed.\n\n<sub>bcv-runbot: a new preview is built if it is reopened.</sub>`;
}

/**
 * The pull request was closed or merged and its previews are destroyed: its comment, if it has one, is edited
 * to say so (never added: a request that never had a preview gets no message). Queued after the comment writes
 * of its builds' last reports, so a late "canceled" cannot overwrite it. What it came to is recorded on the
 * request's newest build, when it has one.
 */
export function closePullRequestComment(
  forge: ForgeConfig,
  alias: string,
  ref: string,
  number: number,
  how: PullRequestEnd,
): Promise<void> {
  return inCommentOrder(alias, number, async () => {
    const known = await findPullRequestComment(alias, number);
    if (known === null) return;
    const result = await callForge(forge, editCommentRequest(forge, number, known, closedCommentText(number, how)));
    const newest = (await listAutomaticBuildsOfBranch(alias, ref, AUTOMATIC_TRIGGERS, BUILD_STATUSES)).at(-1);
    if (!newest) return;
    await recordForgeReport({
      buildId: newest.id,
      alias,
      kind: "comment",
      state: "closed",
      description: `comment on #${number}: pull request ${how}, preview destroyed`,
      outcome: result.ok ? "sent" : "failed",
      attempts: result.attempts,
      error: result.error,
    });
  });
}

async function writeComment(
  forge: ForgeConfig,
  subject: CommentSubject,
  state: CommentState,
  link: string | null,
): Promise<void> {
  const builds = await listAutomaticBuildsOfBranch(subject.alias, subject.ref, AUTOMATIC_TRIGGERS, BUILD_STATUSES);
  if (builds.some((build) => build.seq > subject.seq)) return;
  // The request was closed after this build (its comment says so, recorded on this build): a later end of the
  // build, such as a DELETE of its expired preview, must not overwrite that. A reopened request builds anew.
  if (
    (await listForgeReports(subject.buildId)).some((report) => report.kind === "comment" && report.state === "closed")
  )
    return;
  const text = commentText(subject, state, link);
  const known = await findPullRequestComment(subject.alias, subject.number);
  let result = known === null ? null : await callForge(forge, editCommentRequest(forge, subject.number, known, text));
  // No comment yet, or someone deleted ours: make one.
  if (result === null || result.httpStatus === 404) {
    result = await callForge(forge, newCommentRequest(forge, subject.number, text));
    const id = (result.response as { id?: unknown } | null)?.id;
    if (result.ok && (typeof id === "number" || typeof id === "string"))
      await savePullRequestComment(subject.alias, subject.number, String(id));
  }
  await recordForgeReport({
    buildId: subject.buildId,
    alias: subject.alias,
    kind: "comment",
    state,
    description: `comment on #${subject.number}: ${words(state, subject)}`,
    outcome: result.ok ? "sent" : "failed",
    attempts: result.attempts,
    error: result.error,
  });
}
