import type { Job } from "./job";
import { processWide } from "./process-wide";

/**
 * The scheduler of the background jobs (lib/server/job.ts): one timer per job, reset after each run, so that a
 * run never overlaps the job's previous one; a run that throws is logged and counted, and the next comes as
 * planned. What each job did last and does next is kept for GET /metrics (listJobs).
 *
 * Written over Node's timers rather than taken from a library: the cron schedulers (croner, node-cron,
 * node-schedule) count in wall-clock fields, not in milliseconds from the start, and the interval ones
 * (toad-scheduler, set-interval-async) neither let a job choose its next run (a retry sooner than the interval),
 * nor tell when it comes, nor wait for the run in flight on a stop. The jobs are kept on globalThis: the route
 * handlers, bundled apart from instrumentation.ts, ask for a run (runJobSoon) and read the list.
 */
export interface JobStatus {
  name: string;
  runsOn: Job["runsOn"];
  running: boolean;
  runs: number;
  failures: number;
  lastRunAt: Date | null;
  lastFailure: string | null;
  nextRunAt: Date | null;
}

interface Scheduled {
  job: Job;
  every: number | null;
  timer: NodeJS.Timeout | null;
  /** The run in flight, and whether another was asked for meanwhile. */
  run: Promise<void> | null;
  again: boolean;
  stopping: AbortController;
  status: JobStatus;
}

const scheduled = processWide("backgroundJobs", () => new Map<string, Scheduled>());

/** Starts the job (its `start`, then its runs); a job started already is left as it is. */
export async function startJob(job: Job): Promise<void> {
  if (scheduled.has(job.name)) return;
  const entry: Scheduled = {
    job,
    every: null,
    timer: null,
    run: null,
    again: false,
    stopping: new AbortController(),
    status: {
      name: job.name,
      runsOn: job.runsOn,
      running: false,
      runs: 0,
      failures: 0,
      lastRunAt: null,
      lastFailure: null,
      nextRunAt: null,
    },
  };
  scheduled.set(job.name, entry);
  try {
    await job.start?.();
  } catch (error) {
    scheduled.delete(job.name);
    throw error;
  }
  if (entry.stopping.signal.aborted) return;
  entry.every = job.run ? (job.every?.() ?? null) : null;
  if (entry.every === null) return;
  if (job.firstRun === "awaited") await runNow(entry);
  else if (job.firstRun === "at start") void runNow(entry);
  else planNextRun(entry, Date.now() + entry.every);
}

/** Stops the job: no run after this one, the one in flight (told by its signal) awaited, then its `stop`. */
export async function stopJob(name: string): Promise<void> {
  const entry = scheduled.get(name);
  if (!entry || entry.stopping.signal.aborted) return;
  entry.stopping.abort();
  if (entry.timer) clearTimeout(entry.timer);
  entry.status.nextRunAt = null;
  await entry.run;
  scheduled.delete(name);
  await entry.job.stop?.();
}

/** Runs the job now, or once more right after the run in flight; nothing when it does not run here. */
export function runJobSoon(name: string): void {
  const entry = scheduled.get(name);
  if (entry && entry.every !== null && !entry.stopping.signal.aborted) void runNow(entry);
}

/** The jobs running here, with their last and next runs. */
export function listJobs(): JobStatus[] {
  return [...scheduled.values()].map((entry) => ({ ...entry.status }));
}

function runNow(entry: Scheduled): Promise<void> {
  if (entry.run) {
    entry.again = true;
    return entry.run;
  }
  if (entry.timer) clearTimeout(entry.timer);
  const { job, status } = entry;
  const startedAt = Date.now();
  status.running = true;
  status.lastRunAt = new Date(startedAt);
  status.nextRunAt = null;
  entry.again = false;
  entry.run = (async () => {
    try {
      await job.run?.(entry.stopping.signal);
    } catch (error) {
      status.failures++;
      status.lastFailure = (error as Error).message ?? String(error);
      console.error(`jobs: a run of "${job.name}" failed:`, error);
    }
  })().finally(() => {
    status.runs++;
    status.running = false;
    entry.run = null;
    if (entry.stopping.signal.aborted) return;
    const next = job.nextRunAt?.(startedAt) ?? startedAt + (entry.every ?? 0);
    planNextRun(entry, entry.again ? Date.now() : next);
  });
  return entry.run;
}

function planNextRun(entry: Scheduled, at: number): void {
  entry.status.nextRunAt = new Date(at);
  entry.timer = setTimeout(() => void runNow(entry), Math.max(0, at - Date.now()));
  entry.timer.unref();
}
