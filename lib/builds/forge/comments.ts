import type { ForgeConfig } from "../config";
import { listAutomaticBuildsOfBranch } from "../repository";
import { AUTOMATIC_TRIGGERS } from "../schemas";
import { BUILD_STATUSES } from "../status";
import { callForge, editCommentRequest, newCommentRequest, type ForgeState } from "./api";
import { findPullRequestComment, recordForgeReport, savePullRequestComment } from "./reports";

/**
 * The one comment on a pull request that shows its preview (forge.comment): made by the first build of the
 * request, then edited in place by every later report, so the conversation gets one message, not one per push.
 * Only the request's newest build writes it: an older build canceled because a newer one replaced it must not
 * overwrite the newer one's state.
 */
const globalForComments = globalThis as unknown as { pullRequestCommentChains?: Map<string, Promise<void>> };

const WORDS: Record<ForgeState, string> = {
  queued: "⏳ queued",
  building: "🔨 building",
  success: "✅ the preview is running",
  failure: "❌ failed",
  canceled: "⏹️ canceled",
  lost: "⚠️ lost when the build service restarted",
};

export interface CommentSubject {
  buildId: string;
  seq: number;
  alias: string;
  ref: string;
  number: number;
  commitSha: string;
  failureStage: string | null;
}

export function commentText(subject: CommentSubject, state: ForgeState, link: string | null): string {
  const stage = state === "failure" && subject.failureStage ? ` at stage ${subject.failureStage}` : "";
  const where = link ? ` — [build ${subject.buildId}](${link})` : ` — build ${subject.buildId}`;
  return `**Preview** of \`${subject.commitSha.slice(0, 12)}\`: ${WORDS[state]}${stage}${where}\n\n<sub>bcv-runbot: this comment is edited as new commits are built.</sub>`;
}

/** Writes the pull request's comment for this build's state, one pull request's comments at a time. */
export function updatePullRequestComment(forge: ForgeConfig, subject: CommentSubject, state: ForgeState, link: string | null): Promise<void> {
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
export function closePullRequestComment(forge: ForgeConfig, alias: string, ref: string, number: number, how: PullRequestEnd): Promise<void> {
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

async function writeComment(forge: ForgeConfig, subject: CommentSubject, state: ForgeState, link: string | null): Promise<void> {
  const builds = await listAutomaticBuildsOfBranch(subject.alias, subject.ref, AUTOMATIC_TRIGGERS, BUILD_STATUSES);
  if (builds.some((build) => build.seq > subject.seq)) return;
  const text = commentText(subject, state, link);
  const known = await findPullRequestComment(subject.alias, subject.number);
  let result = known === null ? null : await callForge(forge, editCommentRequest(forge, subject.number, known, text));
  // No comment yet, or someone deleted ours: make one.
  if (result === null || result.httpStatus === 404) {
    result = await callForge(forge, newCommentRequest(forge, subject.number, text));
    const id = (result.response as { id?: unknown } | null)?.id;
    if (result.ok && (typeof id === "number" || typeof id === "string")) await savePullRequestComment(subject.alias, subject.number, String(id));
  }
  await recordForgeReport({
    buildId: subject.buildId,
    alias: subject.alias,
    kind: "comment",
    state,
    description: `comment on #${subject.number}: ${WORDS[state]}`,
    outcome: result.ok ? "sent" : "failed",
    attempts: result.attempts,
    error: result.error,
  });
}
