/**
 * The one place the background work is listed, in the order it starts: each domain defines its jobs beside the work
 * (lib/server/job.ts), the scheduler (lib/server/scheduler.ts) runs them. Started from instrumentation.ts when the
 * server boots, stopped in the reverse order on SIGTERM or SIGINT. A job that runs on "one" instance of a cluster
 * runs on the holder of its lease (lib/topology); on a single instance it just runs.
 */
import { scheduledBackupsJob } from "../backups/schedule";
import { autoBuildsJob, repositoryPollingJob } from "../builds/auto/polling";
import { forgeStatusesJob } from "../builds/forge/statuses";
import { buildsMembership } from "../builds/membership";
import { buildExecutorJob } from "../builds/queue/executor";
import { buildReaperJob } from "../builds/queue/reaper";
import { sleepPolicyJob } from "../builds/runtime/sleep";
import { rateScheduleJob } from "../rates/schedule";
import { webhookDispatcherJob } from "../rates/webhooks/dispatcher";
import { getTopology } from "../topology";
import type { Job } from "./job";
import { processWide } from "./process-wide";
import { startJob, stopJob } from "./scheduler";

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
