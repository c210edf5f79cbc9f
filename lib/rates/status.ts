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
    next_fetch_at: nextScheduledFetch(now.getTime())?.toISOString() ?? null,
  };
}
