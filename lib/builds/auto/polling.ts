import type { Job } from "../../server/job";
import { processWide } from "../../server/process-wide";
import { startJob, stopJob } from "../../server/scheduler";
import { type BuildsConfig, getBuildsConfig, type RepositoryConfig } from "../config";
import { buildEvents } from "../events";
import { git, mirrorPath, syncMirror } from "../git/mirrors";
import { refProblem } from "../names";
import { listHeads } from "./heads";
import { pullNumberOf } from "./pull-refs";
import { pollPullRequests } from "./pull-request-poll";
import { drainPendingNotices, followsBranch, forgetBranch, noticeBranchHead, retireSupersededBuilds } from "./service";

/**
 * The background part of automatic builds, two jobs (jobs.ts): on every instance, building remembered
 * notices when the queue has room and retiring older automatic builds once a newer one of their branch runs; on
 * one instance of a cluster, polling the repositories with watch_interval_seconds.
 */
const globalForWatch = processWide<{
  autoBuildListeners?: { dequeued: () => void; running: (buildId: string) => void };
  pollingJobs?: string[];
}>("autoBuildWatch", () => ({}));

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
function startAutoBuilds(): void {
  const drain = () => void drainPendingNotices().catch(logFailure("building remembered notices"));
  const running = (buildId: string) =>
    void retireSupersededBuilds(buildId).catch(logFailure("retiring older automatic builds"));
  globalForWatch.autoBuildListeners = { dequeued: drain, running };
  buildEvents().on("dequeued", drain);
  buildEvents().on("running", running);
  // Notices remembered before a restart.
  drain();
}

function stopAutoBuilds(): void {
  const listeners = globalForWatch.autoBuildListeners;
  if (!listeners) return;
  buildEvents().off("dequeued", listeners.dequeued);
  buildEvents().off("running", listeners.running);
  globalForWatch.autoBuildListeners = undefined;
}

export const autoBuildsJob: Job = {
  name: "automatic builds",
  runsOn: "each",
  start: startAutoBuilds,
  stop: stopAutoBuilds,
};

/**
 * Polling the repositories with watch_interval_seconds, each its own job, and a periodic drain of remembered
 * notices, a safety net for room made elsewhere. Once across the cluster: two instances polling would notice each
 * head twice.
 */
export const repositoryPollingJob: Job = {
  name: "repository polling",
  runsOn: "one",
  async start() {
    const config = getBuildsConfig();
    const jobs: Job[] = [
      {
        name: "remembered notices",
        runsOn: "each",
        every: () => config.reaper_interval_seconds * 1000,
        run: () => drainPendingNotices(),
      },
      ...config.repositories
        .filter((repository) => repository.watch_interval_seconds && repository.auto_build)
        .map(
          (repository): Job => ({
            name: `polling ${repository.alias}`,
            runsOn: "each",
            every: () => (repository.watch_interval_seconds ?? 0) * 1000,
            firstRun: "at start",
            run: () => pollRepository(config, repository),
          }),
        ),
    ];
    globalForWatch.pollingJobs = jobs.map((job) => job.name);
    for (const job of jobs) await startJob(job);
  },
  async stop() {
    for (const name of globalForWatch.pollingJobs ?? []) await stopJob(name);
    globalForWatch.pollingJobs = undefined;
  },
};
