/**
 * A piece of background work. Each domain defines its jobs beside the work they do; jobs.ts (beside
 * instrumentation.ts) lists them all, in the order they start, and hands them to the scheduler
 * (lib/server/scheduler.ts), which starts them when
 * the server boots and stops them, in the reverse order, when it stops.
 *
 * - `start` sets the job up (listeners, a recovery), `stop` undoes it; either may be left out.
 * - `run`, when given, is the periodic work: every `every()` milliseconds from the start of the run before, never
 *   two runs of the job at once (a run that overran is followed at once). `every()` is asked once `start` returned;
 *   null means no runs on this configuration (the setting that asks for them is off). A job may compute its next
 *   run itself (`nextRunAt`, e.g. a sooner retry after a failure). `signal` is aborted when the job stops: a run
 *   that loops checks it. A run that throws is logged and counted, and the job goes on.
 * - `firstRun`: "awaited", the first run ends before the job counts as started; "at start", it begins at start;
 *   left out, it comes one interval after the start.
 * - `runsOn`: "each" instance runs it, or only "one" instance of a cluster at a time, the holder of its lease
 *   (lib/topology's runOnce).
 */
export interface Job {
  name: string;
  runsOn: "each" | "one";
  start?: () => Promise<void> | void;
  stop?: () => Promise<void> | void;
  run?: (signal: AbortSignal) => Promise<void> | void;
  every?: () => number | null;
  firstRun?: "awaited" | "at start";
  /** When (epoch ms) the run after the one that began at `lastRunAt` is due; the interval's tick when left out. */
  nextRunAt?: (lastRunAt: number) => number;
}
