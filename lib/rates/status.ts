import { getEnv } from "../server/env";
import { getTopology } from "../topology";
import { type FetchRecord, findLastFetches } from "./fetch-log";
import { assessFreshness } from "./freshness";
import { findLatestRate } from "./repository";
import { nextScheduledFetch, RATE_SCHEDULE_JOB } from "./schedule";
import type { RateStatusView } from "./schemas";
import { RATE_SOURCE } from "./source";

const triggerOf = (record: FetchRecord) => (record.trigger === "schedule" ? "schedule" : "request");

/** GET /rates/status: the last fetches, the next one, and whether the newest value date is as new as it should be. */
export async function getRateStatus(now = new Date()): Promise<RateStatusView> {
  const env = getEnv();
  const [{ success, failure }, newest] = await Promise.all([findLastFetches(), findLatestRate()]);
  const freshness = assessFreshness(newest?.date, now, {
    timeZone: env.RATES_TIMEZONE,
    staleAfter: env.RATES_STALE_AFTER,
    holidays: env.RATES_HOLIDAYS,
  });
  return {
    source: { ...RATE_SOURCE },
    newest_value_date: newest?.date ?? null,
    ...freshness,
    stale_after: `${env.RATES_STALE_AFTER} ${env.RATES_TIMEZONE}`,
    last_success: success && {
      at: success.finishedAt.toISOString(),
      trigger: triggerOf(success),
      created: success.outcome === "stored",
      value_date: success.valueDate!,
      dollar: Number(success.dollar),
      currencies: success.currencies ? success.currencies.split(",") : [],
    },
    last_failure: failure && {
      at: failure.finishedAt.toISOString(),
      trigger: triggerOf(failure),
      kind: failure.failureKind ?? "internal",
      detail: failure.detail ?? "",
    },
    next_fetch_at: (await nextFetch(now, env.RATES_FETCH_INTERVAL_SECONDS, [success, failure]))?.toISOString() ?? null,
  };
}

/**
 * When the schedule fetches next: from this instance's timers when it runs the schedule; else, when another
 * instance of the cluster does (it holds the schedule's lease, lib/cluster/leases.ts), what that one announced
 * after its last fetch (its tick, or a sooner retry after a failure), the same time it answers itself. While its
 * fetch is under way (the announcement is past), the first of its ticks after now, which fall every interval
 * after the last scheduled fetch started.
 */
async function nextFetch(
  now: Date,
  intervalSeconds: number,
  lastFetches: (FetchRecord | null)[],
): Promise<Date | undefined> {
  const here = nextScheduledFetch(now.getTime());
  if (here || intervalSeconds === 0) return here;
  const announced = await getTopology().announcedNextRun(RATE_SCHEDULE_JOB);
  if (announced && announced.getTime() > now.getTime()) return announced;
  const started = lastFetches
    .filter((record) => record?.trigger === "schedule")
    .map((record) => record!.startedAt.getTime());
  if (started.length === 0) return undefined;
  const last = Math.max(...started);
  const intervalMs = intervalSeconds * 1000;
  return new Date(last + Math.max(1, Math.ceil((now.getTime() - last) / intervalMs)) * intervalMs);
}
