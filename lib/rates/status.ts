import { getEnv } from "../env";
import { findLastFetches, type FetchRecord } from "./fetch-log";
import { assessFreshness } from "./freshness";
import { nextScheduledFetch } from "./jobs";
import { findLatestRate } from "./repository";
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
    next_fetch_at: nextFetch(now, env.RATES_FETCH_INTERVAL_SECONDS, [success, failure])?.toISOString() ?? null,
  };
}

/**
 * When the schedule fetches next: from this instance's timer when it runs the schedule; else, when another
 * instance of the cluster does (it holds the schedule's lease, lib/cluster/leases.ts), the first of that one's
 * ticks after now, which fall every interval after the last scheduled fetch started.
 */
function nextFetch(now: Date, intervalSeconds: number, lastFetches: (FetchRecord | null)[]): Date | undefined {
  const here = nextScheduledFetch(now.getTime());
  if (here || intervalSeconds === 0) return here;
  const started = lastFetches.filter((record) => record?.trigger === "schedule").map((record) => record!.startedAt.getTime());
  if (started.length === 0) return undefined;
  const last = Math.max(...started);
  const intervalMs = intervalSeconds * 1000;
  return new Date(last + Math.max(1, Math.ceil((now.getTime() - last) / intervalMs)) * intervalMs);
}
