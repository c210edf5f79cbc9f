import { getEnv } from "../../server/env";
import type { Job } from "../../server/job";
import { processWide } from "../../server/process-wide";
import { pullNumberOf } from "../auto/pull-refs";
import { type ForgeConfig, getBuildsConfig } from "../config";
import { buildEvents } from "../events";
import { nameUrl, refLabel } from "../preview-names";
import { type BuildRecord, findBuild } from "../repository";
import type { BuildStatus } from "../status";
import { callForge, type ForgeState, hostState, statusRequest } from "./api";
import {
  type CommentSubject,
  commentStateOf,
  commentText,
  ENDED_COMMENT_STATES,
  updatePullRequestComment,
} from "./comments";
import { recordForgeReport } from "./reports";

/**
 * Commit statuses on the git host: every build of a repository that has a `forge` block reports on
 * that repository's commit: pending while queued and building, success once its preview runs (linked to the
 * build's page here), failure naming the failed stage, error when canceled or lost in a restart. A status is the
 * verdict on the commit: a passed build stays success when its preview later sleeps, expires or is destroyed
 * (only a runtime that dies while running turns it to failure); the pull request's comment follows all of
 * those (lib/builds/forge/comments.ts). The executor
 * does not wait for any of it: the reports follow the build's status events, one build's in order, and what
 * each one came to is recorded (ForgeReport) for the build's page.
 */
const TERMINAL: readonly ForgeState[] = ["success", "failure", "canceled", "lost"];

interface ReporterState {
  /** Per build: the reports still being sent, chained so that they reach the host in order. */
  chains: Map<string, Promise<void>>;
  /**
   * Per build and repository, the last state reported ("<build> <alias>") and the last text of the comment
   * ("comment <build> <alias>"), so the stages of one build report "building" once.
   */
  last: Map<string, string>;
  listeners: { queued: (buildId: string) => void; moved: (buildId: string, to: BuildStatus) => void } | null;
}

const globalForReports = processWide<{ forgeReporter?: ReporterState }>("forgeReporter", () => ({}));

function reporter(): ReporterState {
  globalForReports.forgeReporter ??= { chains: new Map(), last: new Map(), listeners: null };
  return globalForReports.forgeReporter;
}

/** What a build status means on the host, with the description shown there; null: nothing to report. */
export function forgeStateOf(
  status: BuildStatus,
  failureStage: string | null,
  logChecks: { errors: number; warnings: number } = { errors: 0, warnings: 0 },
): { state: ForgeState; description: string } | null {
  const meaning = forgeStateWithoutLogChecks(status, failureStage);
  const found = logChecksText(logChecks);
  return meaning && found ? { ...meaning, description: `${meaning.description} (${found})` } : meaning;
}

/** "2 errors, 1 warning" in the logs, or "" when they are clean: the first thing a reviewer wants to see. */
export function logChecksText({ errors, warnings }: { errors: number; warnings: number }): string {
  const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? "" : "s"}`;
  return [errors > 0 ? plural(errors, "error") : "", warnings > 0 ? plural(warnings, "warning") : ""]
    .filter(Boolean)
    .join(", ");
}

function forgeStateWithoutLogChecks(
  status: BuildStatus,
  failureStage: string | null,
): { state: ForgeState; description: string } | null {
  switch (status) {
    case "queued":
      return { state: "queued", description: "Queued" };
    case "checking_out":
    case "installing":
    case "testing":
    case "starting":
      return { state: "building", description: "Building" };
    case "running":
      return { state: "success", description: "Preview running" };
    case "failed":
      // A restart that interrupted the build is the service's failure, not the commit's.
      if (failureStage === "recovery")
        return { state: "lost", description: "The build service restarted and lost this build" };
      return { state: "failure", description: `Failed at stage ${failureStage ?? "unknown"}` };
    case "canceled":
      return { state: "canceled", description: "Canceled" };
    default:
      return null;
  }
}

/** The build's page on the dashboard, for the status's link; null when the app's public address is unknown. */
export function buildPageUrl(buildId: string): string | null {
  const { PUBLIC_URL, NEXTAUTH_URL } = getEnv();
  const base = PUBLIC_URL ?? NEXTAUTH_URL;
  return base ? `${base.replace(/\/+$/, "")}/builds/${buildId}` : null;
}

/** Queues the reports of a build's new status; returns once they are sent or given up (tests and shutdown wait on it). */
export function reportBuildStatus(buildId: string, status: BuildStatus): Promise<void> {
  const state = reporter();
  const previous = state.chains.get(buildId) ?? Promise.resolve();
  const next = previous
    .then(() => sendStatuses(buildId, status))
    .catch((error) => {
      console.error(`builds: reporting build ${buildId} to its git host failed:`, error);
    });
  state.chains.set(buildId, next);
  void next.finally(() => {
    if (state.chains.get(buildId) === next) state.chains.delete(buildId);
  });
  return next;
}

async function sendStatuses(buildId: string, status: BuildStatus): Promise<void> {
  const config = getBuildsConfig();
  const forges = new Map(config.repositories.filter((r) => r.forge).map((r) => [r.alias, r.forge as ForgeConfig]));
  if (forges.size === 0) return;
  const build = await findBuild(buildId);
  if (!build) return;
  // The commit status is the build's verdict on the commit: a passed build's preview that sleeps, expires or is
  // destroyed leaves it at success (null here). The comment says where the preview is now, so it follows those too.
  const meaning = forgeStateOf(status, build.failureStage, { errors: build.logErrors, warnings: build.logWarnings });
  const commentState = commentStateOf(status, build);
  if (!meaning && !commentState) return;
  const state = reporter();
  // Each repository's commit, one after another: a build of several repositories reports on each.
  for (const repository of build.repositories) {
    const forge = forges.get(repository.alias);
    if (!forge) continue;
    const key = `${buildId} ${repository.alias}`;
    if (meaning && state.last.get(key) !== meaning.state) {
      state.last.set(key, meaning.state);
      if (TERMINAL.includes(meaning.state)) forgetLater(key);
      await sendStatus(build, repository.alias, repository.commitSha, forge, meaning.state, meaning.description);
    }
    const number = pullNumberOf(repository.ref);
    if (!forge.comment || number === null || !commentState) continue;
    const subject: CommentSubject = {
      buildId,
      seq: build.seq,
      alias: repository.alias,
      ref: repository.ref,
      number,
      commitSha: repository.commitSha,
      failureStage: build.failureStage,
      failureMessage: build.failureMessage,
      expiresAt: build.expiresAt,
      keptUntil: build.endedAt && new Date(build.endedAt.getTime() + config.retention_days * 24 * 3600 * 1000),
      previewUrl: config.gateway
        ? nameUrl(config.gateway, `${refLabel(repository.alias, repository.ref)}.${config.gateway.domain}`)
        : null,
    };
    // Edited when its text changes: a new state, or the same end with a later retention (an expired preview
    // destroyed later has its page kept from then on).
    const commentKey = `comment ${key}`;
    const text = commentText(subject, commentState, buildPageUrl(buildId));
    if (state.last.get(commentKey) === text) continue;
    state.last.set(commentKey, text);
    if (ENDED_COMMENT_STATES.includes(commentState)) forgetLater(commentKey);
    await updatePullRequestComment(forge, subject, commentState, buildPageUrl(buildId));
  }
}

async function sendStatus(
  build: BuildRecord,
  alias: string,
  sha: string,
  forge: ForgeConfig,
  state: ForgeState,
  description: string,
) {
  // A running preview's status links the preview itself, at the build's own name, when there is a gateway.
  const { gateway } = getBuildsConfig();
  const link =
    state === "success" && gateway ? nameUrl(gateway, `${build.id}.${gateway.domain}`) : buildPageUrl(build.id);
  const result = await callForge(forge, statusRequest(forge, sha, state, description, link));
  if (!result.ok)
    console.warn(`builds: build ${build.id}: the ${forge.kind} status of ${alias} was not taken: ${result.error}`);
  await recordForgeReport({
    buildId: build.id,
    alias,
    kind: "status",
    state: hostState(forge.kind, state),
    description,
    outcome: result.ok ? "sent" : "failed",
    attempts: result.attempts,
    error: result.error,
  });
}

/** A build that ended may still fail later (its runtime dies): keep its last state a while, not forever. */
function forgetLater(key: string) {
  const timer = setTimeout(() => reporter().last.delete(key), 24 * 3600 * 1000);
  timer.unref();
}

/** Settles once the reports already queued for these builds are sent or given up. */
export async function reportsSettled(buildIds: readonly string[]): Promise<void> {
  const chains = reporter().chains;
  await Promise.all(buildIds.map((buildId) => chains.get(buildId) ?? Promise.resolve()));
}

/** Follows every build's status changes. */
function startForgeReports(): void {
  const state = reporter();
  if (state.listeners) return;
  const queued = (buildId: string) => void reportBuildStatus(buildId, "queued");
  const moved = (buildId: string, to: BuildStatus) => void reportBuildStatus(buildId, to);
  state.listeners = { queued, moved };
  buildEvents().on("queued", queued);
  buildEvents().on("moved", moved);
}

/** Stops following, and gives the reports in flight a moment to arrive. */
async function stopForgeReports(): Promise<void> {
  const state = reporter();
  if (state.listeners) {
    buildEvents().off("queued", state.listeners.queued);
    buildEvents().off("moved", state.listeners.moved);
    state.listeners = null;
  }
  await Promise.race([
    Promise.all(state.chains.values()),
    new Promise((resolve) => setTimeout(resolve, 2_000).unref()),
  ]);
}

/** The reports to the git hosts as a background job: it follows the build events, on every instance. */
export const forgeStatusesJob: Job = {
  name: "forge statuses",
  runsOn: "each",
  start: startForgeReports,
  stop: stopForgeReports,
};
