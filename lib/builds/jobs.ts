import { startAutoBuilds, startRepositoryPolling, stopAutoBuilds, stopRepositoryPolling } from "./auto/jobs";
import { startForgeReports, stopForgeReports } from "./forge/statuses";
import { startExecutor, stopExecutor } from "./queue/executor";
import { startReaper, stopReaper } from "./queue/reaper";
import { startSleepPolicy, stopSleepPolicy } from "./runtime/sleep";

/**
 * The build service's background work, registered in lib/server/jobs.ts. The reaper starts after the recovery;
 * automatic builds (polling, remembered notices) after both. A job marked `once` runs on one instance of the
 * cluster at a time.
 */
export const buildJobs = [
  // First: the executor's recovery moves builds, and the git hosts hear of those moves too.
  { name: "forge statuses", start: startForgeReports, stop: stopForgeReports },
  { name: "build executor", start: startExecutor, stop: stopExecutor },
  { name: "build reaper", start: startReaper, stop: stopReaper },
  { name: "automatic builds", start: startAutoBuilds, stop: stopAutoBuilds },
  // Once across the cluster (lib/cluster/leases.ts): two instances polling would notice each head twice.
  { name: "repository polling", start: startRepositoryPolling, stop: stopRepositoryPolling, once: true },
  { name: "sleep policy", start: startSleepPolicy, stop: stopSleepPolicy },
];
