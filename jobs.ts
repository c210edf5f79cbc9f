/**
 * The one place the background work is listed, in the order it starts: each domain defines its jobs beside the work
 * (lib/server/job.ts), the scheduler (lib/server/scheduler.ts) runs them. Started from instrumentation.ts when the
 * server boots, stopped in the reverse order on SIGTERM or SIGINT. A job that runs on "one" instance of a cluster
 * runs on the holder of its lease (lib/topology); on a single instance it just runs. It sits here, beside
 * instrumentation.ts and above lib/, because it names every domain: the domains and the process's own ground floor
 * (lib/server/) do not know it.
 */
import { scheduledBackupsJob } from "./lib/backups/schedule";
import { autoBuildsJob, repositoryPollingJob } from "./lib/builds/auto/polling";
import { forgeStatusesJob } from "./lib/builds/forge/statuses";
import { buildsMembership } from "./lib/builds/membership";
import { buildExecutorJob } from "./lib/builds/queue/executor";
import { buildReaperJob } from "./lib/builds/queue/reaper";
import { sleepPolicyJob } from "./lib/builds/runtime/sleep";
import { rateScheduleJob } from "./lib/rates/schedule";
import { webhookDispatcherJob } from "./lib/rates/webhooks/dispatcher";
import type { Job } from "./lib/server/job";
import { processWide } from "./lib/server/process-wide";
import { startJob, stopJob } from "./lib/server/scheduler";
import { getTopology } from "./lib/topology";

function backgroundJobs(): Job[] {
  const topology = getTopology();
  return [
    // The instance registers first: the executor's claims name it as their host.
    topology.membershipJob(() => buildsMembership()),
    // Before the executor: its recovery moves builds, and the git hosts hear of those moves too.
    forgeStatusesJob,
    buildExecutorJob,
    // After the executor's recovery; automatic builds after both.
    buildReaperJob,
    autoBuildsJob,
    repositoryPollingJob,
    sleepPolicyJob,
    rateScheduleJob,
    webhookDispatcherJob,
    scheduledBackupsJob,
  ].map((job) => (job.runsOn === "one" ? topology.runOnce(job) : job));
}

const globalForJobs = processWide<{ backgroundJobsStarted?: boolean }>("backgroundJobsStarted", () => ({}));

export async function startBackgroundJobs(): Promise<void> {
  if (globalForJobs.backgroundJobsStarted) return;
  globalForJobs.backgroundJobsStarted = true;
  const jobs = backgroundJobs();
  for (const job of jobs) await startJob(job);
  let stopping = false;
  const stopAllThenExit = () => {
    if (stopping) return;
    stopping = true;
    const stopAll = async () => {
      for (const job of [...jobs].reverse()) await stopJob(job.name);
    };
    // A database that does not answer must not keep the process from ending.
    const bound = new Promise((resolve) => setTimeout(resolve, STOP_JOBS_WITHIN_MS).unref());
    void Promise.race([stopAll(), bound])
      .catch((error) => console.error("stopping the background jobs failed:", error))
      .finally(() => process.exit(0));
  };
  // `npm start` sets NEXT_MANUAL_SIG_HANDLE (Next's documented way to run code on shutdown): otherwise Next's own
  // handler ends the process as soon as its server is closed, before the jobs give their leases back, and another
  // instance would wait for them to expire. The price: requests in flight at the signal are cut, not finished.
  process.on("SIGTERM", stopAllThenExit);
  process.on("SIGINT", stopAllThenExit);
}

/** How long a stop waits for the jobs (the executor's stages get 5 s of it) before the process ends anyway. */
const STOP_JOBS_WITHIN_MS = 10_000;
