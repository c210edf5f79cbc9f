import { getEnv } from "../server/env";
import type { Job } from "../server/job";
import { processWide } from "../server/process-wide";
import { getTopology } from "../topology";
import { fetchAndStoreRate } from "./service";

/** The job's name, which is also its lease's (lib/cluster/leases.ts). */
export const RATE_SCHEDULE_JOB = "rate schedule";

/**
 * Scheduled fetches of the official rate (RATES_FETCH_INTERVAL_SECONDS, hourly by default), so that the history
 * fills itself without anyone calling POST /rates/. The central bank publishes once per business day, often
 * in the afternoon for the next value date; an hourly schedule picks it up within the hour.
 *
 * A fetch that fails is tried again soon, with backoff (RATES_RETRY_BASE_SECONDS, then twice as late each
 * time, at most the interval), rather than at the next tick: a bank that is down when the app starts, or for
 * a few minutes in the afternoon, would otherwise leave the rate unfetched for a whole interval.
 */
interface RateSchedule {
  /** When the schedule started: its ticks fall every intervalMs after it. */
  startedAt: number;
  intervalMs: number;
  retryBaseMs: number;
  /** Failed fetches in a row; 0 after a success. */
  failures: number;
  /** When the retry after a failure is due, if sooner than the next tick. */
  retryAt?: number;
}

// On globalThis: GET /rates/status, bundled apart from instrumentation, reads the next tick from here.
const globalForSchedule = processWide<{ rateSchedule?: RateSchedule }>("rateSchedule", () => ({}));

/** The wait before retrying after `failures` failed fetches in a row: base, 2 × base, 4 × base ..., at most the interval. */
export function retryDelayMs(failures: number, retryBaseMs: number, intervalMs: number): number {
  return Math.min(intervalMs, retryBaseMs * 2 ** Math.min(failures - 1, 30));
}

/** A run of the schedule's job: never two at once, so a slow central bank (retries with timeouts) piles nothing up. */
async function fetchOnSchedule(): Promise<void> {
  const schedule = globalForSchedule.rateSchedule;
  if (!schedule) return;
  schedule.retryAt = undefined;
  try {
    const { rate, created } = await fetchAndStoreRate("schedule");
    schedule.failures = 0;
    console.info(`rates: ${created ? "stored" : "refreshed"} ${rate.dollar} for ${rate.date}`);
  } catch (error) {
    const detail = (error as { detail?: string }).detail ?? (error as Error).message;
    schedule.failures++;
    planRetry(schedule);
    // One line per failure: the bank's site is often down for hours.
    console.warn(`rates: the scheduled fetch failed: ${detail}`);
  } finally {
    announceNextFetch();
  }
}

/**
 * Writes the next fetch (the interval's tick or a sooner retry) beside the schedule's lease, so that GET /rates/status
 * through any instance of the cluster says what this one, which runs the schedule, will do.
 */
function announceNextFetch(): void {
  if (!globalForSchedule.rateSchedule) return;
  getTopology()
    .announceNextRun(RATE_SCHEDULE_JOB, nextScheduledFetch() ?? null)
    .catch((error) => console.warn(`rates: could not announce the next scheduled fetch: ${(error as Error).message}`));
}

/** Tries again after the backoff, unless the interval's next tick comes first (it fetches anyway). */
function planRetry(schedule: RateSchedule): void {
  const now = Date.now();
  const at = now + retryDelayMs(schedule.failures, schedule.retryBaseMs, schedule.intervalMs);
  if (at < nextTick(schedule, now)) schedule.retryAt = at;
}

function startRateSchedule(): void {
  const env = getEnv();
  const seconds = env.RATES_FETCH_INTERVAL_SECONDS;
  if (seconds === 0 || globalForSchedule.rateSchedule) return;
  globalForSchedule.rateSchedule = {
    startedAt: Date.now(),
    intervalMs: seconds * 1000,
    retryBaseMs: env.RATES_RETRY_BASE_SECONDS * 1000,
    failures: 0,
  };
}

function stopRateSchedule(): void {
  globalForSchedule.rateSchedule = undefined;
}

function nextTick(schedule: RateSchedule, now: number): number {
  const ticks = Math.floor((now - schedule.startedAt) / schedule.intervalMs) + 1;
  return schedule.startedAt + ticks * schedule.intervalMs;
}

/**
 * When the schedule fetches next (a pending retry when sooner than the interval's tick); undefined when it is
 * off (RATES_FETCH_INTERVAL_SECONDS=0) or not started.
 */
export function nextScheduledFetch(now = Date.now()): Date | undefined {
  const schedule = globalForSchedule.rateSchedule;
  if (!schedule) return undefined;
  const tick = nextTick(schedule, now);
  return new Date(schedule.retryAt && schedule.retryAt > now ? Math.min(schedule.retryAt, tick) : tick);
}

/**
 * The schedule as a background job, at start and then at each tick or sooner retry. Once across the cluster
 * (lib/topology's runOnce): two instances with the schedule on fetch the bank once per interval.
 */
export const rateScheduleJob: Job = {
  name: RATE_SCHEDULE_JOB,
  runsOn: "one",
  start: startRateSchedule,
  stop: stopRateSchedule,
  every: () => (globalForSchedule.rateSchedule ? globalForSchedule.rateSchedule.intervalMs : null),
  firstRun: "at start",
  run: fetchOnSchedule,
  nextRunAt: () => nextScheduledFetch()?.getTime() ?? Date.now(),
};
