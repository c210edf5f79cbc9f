import type { Job } from "../../server/job";
import { getBuildsConfig } from "../config";
import { listExpiredRunningBuilds, moveBuild } from "../repository";
import { buildsOfThisHost, destroyRuntime, failBuildsWithDeadRuntimes, retryUnfinishedDestroys } from "./executor";
import { purgeExpiredRetention } from "./retention";

/**
 * The reaper of each host, a background job: independent of requests, it moves running builds past their expiry to
 * `expired` and destroys their runtime, fails running builds whose runtime died, and purges builds past their
 * retention. Its first pass runs at start, which catches builds that expired while the server was down.
 */
export async function reapExpiredBuilds(now = new Date()): Promise<void> {
  // Each host reaps its own builds: their runtimes run there.
  for (const build of await listExpiredRunningBuilds(now, buildsOfThisHost())) {
    // A destroy that fails now is tried again by retryUnfinishedDestroys: the port stays recorded until then.
    if (await moveBuild(build.id, build.status as "running" | "sleeping", "expired"))
      await destroyRuntime(build.id).catch(() => {});
  }
}

/** One pass: the expired builds, the dead runtimes, the destroys left unfinished, the retention. */
async function reap(): Promise<void> {
  await reapExpiredBuilds();
  await failBuildsWithDeadRuntimes();
  await retryUnfinishedDestroys();
  await purgeExpiredRetention();
}

export const buildReaperJob: Job = {
  name: "build reaper",
  runsOn: "each",
  every: () => getBuildsConfig().reaper_interval_seconds * 1000,
  firstRun: "awaited",
  run: reap,
};
