/**
 * The one place background work starts and stops: each job is a small module with a start and a stop.
 * Started from instrumentation.ts when the server boots. The rate webhook dispatcher runs on every instance: its
 * deliveries are claimed one by one in the database (lib/rates/webhooks/repository.ts), never sent twice.
 */
import { backupJobs } from "../backups/schedule";
import { buildJobs } from "../builds/jobs";
import { buildsMembership } from "../builds/membership";
import { rateJobs } from "../rates/jobs";
import { webhookJobs } from "../rates/webhooks/dispatcher";
import { getTopology } from "../topology";
import type { Job } from "./job";
import { processWide } from "./process-wide";

// The instance registers first: the build executor's claims name it as their host. A job marked `once` runs on
// one instance of the cluster at a time, the holder of its lease.
const topology = getTopology();
const jobs: Job[] = [
  topology.membershipJob(() => buildsMembership()),
  ...[...buildJobs, ...rateJobs, ...webhookJobs, ...backupJobs].map((job: Job) =>
    job.once ? topology.runOnce(job) : job,
  ),
];

const globalForJobs = processWide<{ backgroundJobsStarted?: boolean }>("backgroundJobsStarted", () => ({}));

export async function startBackgroundJobs(): Promise<void> {
  if (globalForJobs.backgroundJobsStarted) return;
  globalForJobs.backgroundJobsStarted = true;
  for (const job of jobs) await job.start();
  let stopping = false;
  const stopAllThenExit = () => {
    if (stopping) return;
    stopping = true;
    const stopAll = async () => {
      for (const job of [...jobs].reverse()) await job.stop();
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
