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
  const chains = (globalForComments.pullRequestCommentChains ??= new Map<string, Promise<void>>());
  const key = `${subject.alias}#${subject.number}`;
  const next = (chains.get(key) ?? Promise.resolve()).then(() => writeComment(forge, subject, state, link)).catch((error: unknown) => {
    console.error(`builds: the comment on ${key} could not be written:`, error);
  });
  chains.set(key, next);
  void next.finally(() => {
    if (chains.get(key) === next) chains.delete(key);
  });
  return next;
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
