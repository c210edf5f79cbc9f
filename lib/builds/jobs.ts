import { startAutoBuilds, stopAutoBuilds } from "./auto/jobs";
import { startExecutor, stopExecutor } from "./executor";
import { startReaper, stopReaper } from "./reaper";

/**
 * The build service's background work, registered in lib/jobs.ts. The reaper starts after the recovery;
 * automatic builds (polling, remembered notices) after both.
 */
export const buildJobs = [
  { name: "build executor", start: startExecutor, stop: stopExecutor },
  { name: "build reaper", start: startReaper, stop: stopReaper },
  { name: "automatic builds", start: startAutoBuilds, stop: stopAutoBuilds },
];
