import { getEnv } from "../server/env";
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
  timer: NodeJS.Timeout;
  running: boolean;
  /** When the interval started: its ticks fall every intervalMs after it. */
  startedAt: number;
  intervalMs: number;
  retryBaseMs: number;
  /** Failed fetches in a row; 0 after a success. */
  failures: number;
  /** The pending retry after a failure, and when it fires. */
  retry?: { timer: NodeJS.Timeout; at: number };
}

// On globalThis: GET /rates/status, bundled apart from instrumentation, reads the next tick from here.
const globalForSchedule = processWide<{ rateSchedule?: RateSchedule }>("rateSchedule", () => ({}));

/** The wait before retrying after `failures` failed fetches in a row: base, 2 × base, 4 × base ..., at most the interval. */
export function retryDelayMs(failures: number, retryBaseMs: number, intervalMs: number): number {
  return Math.min(intervalMs, retryBaseMs * 2 ** Math.min(failures - 1, 30));
}

async function fetchOnSchedule(): Promise<void> {
  const schedule = globalForSchedule.rateSchedule;
  // A slow central bank (retries with timeouts) must not pile up overlapping fetches.
  if (!schedule || schedule.running) return;
  schedule.running = true;
  if (schedule.retry) {
    clearTimeout(schedule.retry.timer);
    schedule.retry = undefined;
  }
  try {
    const { rate, created } = await fetchAndStoreRate("schedule");
    schedule.failures = 0;
    console.info(`rates: ${created ? "stored" : "refreshed"} ${rate.dollar} for ${rate.date}`);
  } catch (error) {
    const detail = (error as { detail?: string }).detail ?? (error as Error).message;
    schedule.failures++;
    scheduleRetry(schedule);
    // One line per failure: the bank's site is often down for hours.
    console.warn(`rates: the scheduled fetch failed: ${detail}`);
  } finally {
    schedule.running = false;
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
function scheduleRetry(schedule: RateSchedule): void {
  if (globalForSchedule.rateSchedule !== schedule) return; // stopped meanwhile
  const now = Date.now();
  const at = now + retryDelayMs(schedule.failures, schedule.retryBaseMs, schedule.intervalMs);
  if (at >= nextTick(schedule, now)) return;
  const timer = setTimeout(() => void fetchOnSchedule(), at - now);
  timer.unref();
  schedule.retry = { timer, at };
}

function startRateSchedule(): void {
  const env = getEnv();
  const seconds = env.RATES_FETCH_INTERVAL_SECONDS;
  if (seconds === 0 || globalForSchedule.rateSchedule) return;
  const timer = setInterval(() => void fetchOnSchedule(), seconds * 1000);
  timer.unref();
  globalForSchedule.rateSchedule = {
    timer,
    running: false,
    startedAt: Date.now(),
    intervalMs: seconds * 1000,
    retryBaseMs: env.RATES_RETRY_BASE_SECONDS * 1000,
    failures: 0,
  };
  void fetchOnSchedule();
}

function stopRateSchedule(): void {
  const schedule = globalForSchedule.rateSchedule;
  if (!schedule) return;
  clearInterval(schedule.timer);
  if (schedule.retry) clearTimeout(schedule.retry.timer);
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
  return new Date(schedule.retry && schedule.retry.at > now ? Math.min(schedule.retry.at, tick) : tick);
}

// Once across the cluster (lib/cluster/leases.ts): two instances with the schedule on fetch the bank once per interval.
export const rateJobs = [{ name: RATE_SCHEDULE_JOB, start: startRateSchedule, stop: stopRateSchedule, once: true }];
