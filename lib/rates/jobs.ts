import { getEnv } from "../env";
import { fetchAndStoreRate } from "./service";

/**
 * Scheduled fetches of the official rate (RATES_FETCH_INTERVAL_SECONDS, hourly by default), so that the history
 * fills itself without anyone calling POST /rates/. The central bank publishes once per business day, often
 * in the afternoon for the next value date; an hourly schedule picks it up within the hour.
 */
interface RateSchedule {
  timer: NodeJS.Timeout;
  running: boolean;
  /** When the interval started: its ticks fall every intervalMs after it. */
  startedAt: number;
  intervalMs: number;
}

// On globalThis: GET /rates/status, bundled apart from instrumentation, reads the next tick from here.
const globalForSchedule = globalThis as unknown as { rateSchedule?: RateSchedule };

async function fetchOnSchedule(): Promise<void> {
  const schedule = globalForSchedule.rateSchedule;
  // A slow central bank (retries with timeouts) must not pile up overlapping fetches.
  if (!schedule || schedule.running) return;
  schedule.running = true;
  try {
    const { rate, created } = await fetchAndStoreRate("schedule");
    console.info(`rates: ${created ? "stored" : "refreshed"} ${rate.dollar} for ${rate.date}`);
  } catch (error) {
    const detail = (error as { detail?: string }).detail ?? (error as Error).message;
    // One line, and the next tick tries again: the bank's site is often down for hours.
    console.warn(`rates: the scheduled fetch failed: ${detail}`);
  } finally {
    schedule.running = false;
  }
}

function startRateSchedule(): void {
  const seconds = getEnv().RATES_FETCH_INTERVAL_SECONDS;
  if (seconds === 0 || globalForSchedule.rateSchedule) return;
  const timer = setInterval(() => void fetchOnSchedule(), seconds * 1000);
  timer.unref();
  globalForSchedule.rateSchedule = { timer, running: false, startedAt: Date.now(), intervalMs: seconds * 1000 };
  void fetchOnSchedule();
}

function stopRateSchedule(): void {
  if (!globalForSchedule.rateSchedule) return;
  clearInterval(globalForSchedule.rateSchedule.timer);
  globalForSchedule.rateSchedule = undefined;
}

/** When the schedule fetches next; undefined when it is off (RATES_FETCH_INTERVAL_SECONDS=0) or not started. */
export function nextScheduledFetch(now = Date.now()): Date | undefined {
  const schedule = globalForSchedule.rateSchedule;
  if (!schedule) return undefined;
  const ticks = Math.floor((now - schedule.startedAt) / schedule.intervalMs) + 1;
  return new Date(schedule.startedAt + ticks * schedule.intervalMs);
}

// Once across the cluster (lib/cluster/leases.ts): two instances with the schedule on fetch the bank once per interval.
export const rateJobs = [{ name: "rate schedule", start: startRateSchedule, stop: stopRateSchedule, once: true }];
