import { processWide } from "../../server/process-wide";
import { type BuildsConfig, getBuildsConfig, type RepositoryConfig } from "../config";
import { buildEvents } from "../events";
import { git, mirrorPath, syncMirror } from "../git/mirrors";
import { refProblem } from "../names";
import { listHeads } from "./heads";
import { pullNumberOf } from "./pull-refs";
import { pollPullRequests } from "./pull-request-poll";
import { drainPendingNotices, followsBranch, forgetBranch, noticeBranchHead, retireSupersededBuilds } from "./service";

/**
 * The background part of automatic builds, started with the other jobs (lib/builds/jobs.ts): polling of the
 * repositories with watch_interval_seconds, building remembered notices when the queue has room, and
 * retiring older automatic builds once a newer one of their branch runs.
 */
interface WatchState {
  timers: NodeJS.Timeout[];
  listeners: { dequeued: () => void; running: (buildId: string) => void } | null;
  /** One poll of a repository at a time: a slow fetch must not let the next tick start another. */
  polling: Set<string>;
}

const globalForWatch = processWide<{ autoBuildWatch?: WatchState }>("autoBuildWatch", () => ({}));

function logFailure(what: string) {
  return (error: unknown) => console.error(`builds: ${what} failed:`, error);
}

/**
 * One poll: fetch, then notice every followed branch's head and forget followed branches that are gone; then,
 * where the host is configured, the same for its open pull requests.
 */
export async function pollRepository(config: BuildsConfig, repository: RepositoryConfig): Promise<void> {
  if (!(await syncMirror(config, repository))) return;
  const out = await git([
    `--git-dir=${mirrorPath(config, repository.alias)}`,
    "for-each-ref",
    "--format=%(objectname) %(refname)",
    "refs/heads/",
  ]);
  const heads = new Map<string, string>();
  for (const line of out.split("\n")) {
    const match = /^([0-9a-f]{40,64}) refs\/heads\/(.+)$/.exec(line);
    if (match && !refProblem(match[2]) && followsBranch(repository, match[2])) heads.set(match[2], match[1]);
  }
  for (const [branch, sha] of heads) await noticeBranchHead(repository, branch, sha, "poll", null);
  for (const known of await listHeads(repository.alias)) {
    // Pull requests' heads are not branches: their close event (or the pull request poll) forgets them.
    if (pullNumberOf(known.branch) !== null) continue;
    if (!heads.has(known.branch) && followsBranch(repository, known.branch))
      await (await forgetBranch(repository, known.branch)).done;
  }
  await pollPullRequests(config, repository);
}

/**
 * What every instance does for automatic builds: builds remembered notices when a build leaves the queue here,
 * and retires older automatic builds when one reaches running here (the events are this process's own).
 */
export async function startAutoBuilds(): Promise<void> {
  const state: WatchState = (globalForWatch.autoBuildWatch ??= { timers: [], listeners: null, polling: new Set() });
  const drain = () => void drainPendingNotices().catch(logFailure("building remembered notices"));
  const running = (buildId: string) =>
    void retireSupersededBuilds(buildId).catch(logFailure("retiring older automatic builds"));
  state.listeners = { dequeued: drain, running };
  buildEvents().on("dequeued", drain);
  buildEvents().on("running", running);
  // Notices remembered before a restart.
  drain();
}

export function stopAutoBuilds(): void {
  const state = globalForWatch.autoBuildWatch;
  if (!state?.listeners) return;
  buildEvents().off("dequeued", state.listeners.dequeued);
  buildEvents().off("running", state.listeners.running);
  state.listeners = null;
}

/**
 * What runs on one instance of the cluster (lib/cluster/leases.ts): polling the repositories with
 * watch_interval_seconds, and a periodic drain of remembered notices, a safety net for room made elsewhere.
 */
export async function startRepositoryPolling(): Promise<void> {
  const config = getBuildsConfig();
  const state: WatchState = (globalForWatch.autoBuildWatch ??= { timers: [], listeners: null, polling: new Set() });
  const drain = () => void drainPendingNotices().catch(logFailure("building remembered notices"));
  const drainTimer = setInterval(drain, config.reaper_interval_seconds * 1000);
  drainTimer.unref();
  state.timers.push(drainTimer);

  for (const repository of config.repositories) {
    if (!repository.watch_interval_seconds || !repository.auto_build) continue;
    const poll = () => {
      if (state.polling.has(repository.alias)) return;
      state.polling.add(repository.alias);
      void pollRepository(config, repository)
        .catch(logFailure(`polling "${repository.alias}"`))
        .finally(() => state.polling.delete(repository.alias));
    };
    poll();
    const timer = setInterval(poll, repository.watch_interval_seconds * 1000);
    timer.unref();
    state.timers.push(timer);
  }
}

export function stopRepositoryPolling(): void {
  const state = globalForWatch.autoBuildWatch;
  if (!state) return;
  for (const timer of state.timers) clearInterval(timer);
  state.timers = [];
}
