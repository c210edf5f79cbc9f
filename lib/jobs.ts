/**
 * The one place background work starts and stops: each job is a small module with a start and a stop.
 * Started from instrumentation.ts when the server boots. The rate webhook dispatcher runs on every instance: its
 * deliveries are claimed one by one in the database (lib/rates/webhooks/repository.ts), never sent twice.
 */
import { buildJobs } from "./builds/jobs";
import { instanceJobs } from "./cluster/heartbeat";
import { thisInstanceName } from "./cluster/instances";
import { runOnceAcrossCluster, type Job } from "./cluster/leases";
import { rateJobs } from "./rates/jobs";
import { webhookJobs } from "./rates/webhooks/dispatcher";

// The instance registers first: the build executor's claims name it as their host. A job marked `once` runs on
// one instance of the cluster at a time, the holder of its lease.
const jobs: Job[] = [...instanceJobs, ...buildJobs, ...rateJobs, ...webhookJobs].map((job: Job & { once?: boolean }) =>
  job.once ? runOnceAcrossCluster(job, thisInstanceName) : job,
);

const globalForJobs = globalThis as unknown as { backgroundJobsStarted?: boolean };

export async function startBackgroundJobs(): Promise<void> {
  if (globalForJobs.backgroundJobsStarted) return;
  globalForJobs.backgroundJobsStarted = true;
  for (const job of jobs) await job.start();
  const stopAll = async () => {
    for (const job of [...jobs].reverse()) await job.stop();
  };
  process.once("SIGTERM", () => void stopAll().finally(() => process.exit(0)));
  process.once("SIGINT", () => void stopAll().finally(() => process.exit(0)));
}
