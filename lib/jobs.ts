/**
 * The one place background work starts and stops: each job is a small module with a start and a stop.
 * Started from instrumentation.ts when the server boots.
 */
import { buildJobs } from "./builds/jobs";
import { instanceJobs } from "./cluster/heartbeat";
import { rateJobs } from "./rates/jobs";
import { webhookJobs } from "./rates/webhooks/dispatcher";

type Job = { name: string; start: () => Promise<void> | void; stop: () => Promise<void> | void };

// The instance registers first: the build executor's claims name it as their host.
const jobs: Job[] = [...instanceJobs, ...buildJobs, ...rateJobs, ...webhookJobs];

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
