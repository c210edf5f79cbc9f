import { instanceMetrics } from "../../metrics/registry";
import { getEnv } from "../../server/env";
import type { Job } from "../../server/job";
import { processWide } from "../../server/process-wide";
import { runJobSoon } from "../../server/scheduler";
import { findLatestRate } from "../repository";
import { allowedHosts, publishedPayload, randomId } from "./messages";
import {
  claimDelivery,
  type DueDelivery,
  hasDispatchWork,
  listDueDeliveries,
  listWebhooksBehind,
  pruneEndedDeliveries,
  queueValueDateDelivery,
  recordAttempt,
} from "./repository";
import { postDelivery } from "./sender";
import { signDelivery } from "./signature";

/**
 * The webhook dispatcher, a background job (jobs.ts). Every WEBHOOK_POLL_MS, and when nudged, it
 * 1. notices a new value date, whoever stored it (the schedule, POST /rates/, an import, the import command in
 *    another process): the newest stored value date is compared with what each subscription was last told of,
 *    and a delivery is queued for each subscription behind (only the newest date, if several came at once);
 * 2. sends the deliveries that are due, up to MAX_IN_FLIGHT at a time, without waiting for them: a slow or
 *    hanging receiver holds one of those slots until WEBHOOK_TIMEOUT_MS, never a fetch, an import or a request.
 *    Shares are fair: one delivery in flight per webhook (its deliveries go out in order) and at most
 *    MAX_IN_FLIGHT_PER_USER per owner, so a receiver that never answers costs its owner's share and nobody else's;
 * 3. once an hour, removes the deliveries that ended (delivered or given up) and were made more than
 *    DELIVERY_RETENTION_DAYS ago.
 * A failed attempt is retried after WEBHOOK_RETRY_BASE_MS x 4^(attempt - 1) (capped at 6 hours) until
 * WEBHOOK_MAX_ATTEMPTS. Everything is in the database: a restart goes on with what was pending, and an attempt
 * cut short by a crash is tried again once its lease runs out.
 */
const MAX_IN_FLIGHT = 8;
const MAX_IN_FLIGHT_PER_USER = 2;
const DELIVERY_RETENTION_DAYS = 30;
const PRUNE_EVERY_MS = 3600_000;
const MAX_BACKOFF_MS = 6 * 3600_000;

interface DispatcherState {
  /** The deliveries being attempted here, with their webhook and its owner. */
  inFlight: Map<string, { webhookId: string; userId: number }>;
  prunedAt: number;
}

// On globalThis: the route handlers (a test delivery) nudge the dispatcher that instrumentation started.
const globalForDispatcher = processWide<{ rateWebhookDispatcher?: DispatcherState }>(
  "rateWebhookDispatcher",
  () => ({}),
);

export function retryDelayMs(attempt: number, baseMs: number): number {
  return Math.min(baseMs * 4 ** (attempt - 1), MAX_BACKOFF_MS);
}

async function queueNewValueDate(): Promise<void> {
  const newest = await findLatestRate();
  if (!newest) return;
  const behind = await listWebhooksBehind(newest.date);
  if (behind.length === 0) return;
  for (const webhook of behind) {
    const payload = await publishedPayload(newest.date, webhook.currencies);
    await queueValueDateDelivery(webhook, newest.date, { id: randomId("msg_"), type: "rates.published", payload });
  }
}

async function attempt(delivery: DueDelivery): Promise<void> {
  const { WEBHOOK_TIMEOUT_MS, WEBHOOK_MAX_ATTEMPTS, WEBHOOK_RETRY_BASE_MS } = getEnv();
  const timestamp = Math.floor(Date.now() / 1000);
  const result = await postDelivery(
    delivery.webhook.url,
    delivery.payload,
    {
      "User-Agent": "bcv-runbot-webhooks/0.2",
      "webhook-id": delivery.id,
      "webhook-timestamp": String(timestamp),
      "webhook-signature": signDelivery(delivery.webhook.secret, delivery.id, timestamp, delivery.payload),
    },
    { timeoutMs: WEBHOOK_TIMEOUT_MS, allowed: allowedHosts() },
  );
  const attempts = delivery.attempts + 1;
  const givenUp = attempts >= WEBHOOK_MAX_ATTEMPTS;
  instanceMetrics().webhookDeliveries.inc({ outcome: result.ok ? "delivered" : givenUp ? "failed" : "retry" });
  if (result.ok) {
    await recordAttempt(delivery.id, { status: "delivered", lastStatus: result.status, nextAttemptAt: new Date() });
    return;
  }
  await recordAttempt(delivery.id, {
    status: givenUp ? "failed" : "pending",
    lastStatus: result.status,
    lastError: result.error.slice(0, 500),
    nextAttemptAt: new Date(Date.now() + (givenUp ? 0 : retryDelayMs(attempts, WEBHOOK_RETRY_BASE_MS))),
  });
}

async function sendDue(state: DispatcherState, stopping: AbortSignal): Promise<void> {
  if (state.inFlight.size >= MAX_IN_FLIGHT) return;
  const now = new Date();
  // More candidates than slots: some are skipped for their webhook's or their owner's share.
  const due = await listDueDeliveries(now, MAX_IN_FLIGHT * 4);
  const leaseUntil = new Date(now.getTime() + getEnv().WEBHOOK_TIMEOUT_MS + 30_000);
  for (const delivery of due) {
    if (state.inFlight.size >= MAX_IN_FLIGHT || stopping.aborted) break;
    const owner = delivery.webhook.userId;
    const flying = [...state.inFlight.values()];
    if (state.inFlight.has(delivery.id) || flying.some((other) => other.webhookId === delivery.webhookId)) continue;
    if (flying.filter((other) => other.userId === owner).length >= MAX_IN_FLIGHT_PER_USER) continue;
    if (!(await claimDelivery(delivery.id, delivery.attempts, now, leaseUntil))) continue;
    state.inFlight.set(delivery.id, { webhookId: delivery.webhookId, userId: owner });
    void attempt(delivery)
      .catch((error) =>
        console.warn(`webhooks: delivery ${delivery.id} could not be recorded: ${(error as Error).message}`),
      )
      .finally(() => {
        state.inFlight.delete(delivery.id);
        // A slot is free: look for more without waiting for the next tick.
        nudgeWebhookDeliveries();
      });
  }
}

/**
 * A round: new value dates, then the deliveries that are due, and once an hour the pruning. One cheap question
 * first (hasDispatchWork), so that the rounds with nothing to do, nearly all of them, run no Prisma query.
 */
async function dispatchRound(stopping: AbortSignal): Promise<void> {
  const state = globalForDispatcher.rateWebhookDispatcher;
  if (!state) return;
  try {
    if (await hasDispatchWork(new Date())) {
      await queueNewValueDate();
      await sendDue(state, stopping);
    }
    if (Date.now() - state.prunedAt >= PRUNE_EVERY_MS) {
      state.prunedAt = Date.now();
      await pruneEndedDeliveries(new Date(Date.now() - DELIVERY_RETENTION_DAYS * 86_400_000));
    }
  } catch (error) {
    console.warn(`webhooks: the dispatcher's round failed: ${(error as Error).message}`);
  }
}

const DISPATCHER_JOB = "rate webhooks";

/** Runs a round soon, e.g. after a test delivery was queued; nothing when the dispatcher is not running here. */
export function nudgeWebhookDeliveries(): void {
  runJobSoon(DISPATCHER_JOB);
}

/**
 * The dispatcher as a background job, a round every WEBHOOK_POLL_MS, on every instance: its deliveries are claimed
 * one by one in the database (./repository.ts), never sent twice.
 */
export const webhookDispatcherJob: Job = {
  name: DISPATCHER_JOB,
  runsOn: "each",
  start() {
    globalForDispatcher.rateWebhookDispatcher ??= { inFlight: new Map(), prunedAt: 0 };
  },
  stop() {
    globalForDispatcher.rateWebhookDispatcher = undefined;
  },
  every: () => getEnv().WEBHOOK_POLL_MS,
  firstRun: "at start",
  run: dispatchRound,
};
