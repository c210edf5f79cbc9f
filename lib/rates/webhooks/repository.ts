import { getDb } from "../../db";
import { queryOne } from "../../db/hot-sql";
import { DOLLAR } from "../currencies";

// Data access for webhook subscriptions and their deliveries (lib/rates/webhooks).

export type WebhookRow = { id: string; url: string; currencies: string; createdAt: Date };
const webhookFields = { id: true, url: true, currencies: true, createdAt: true } as const;

export type DeliveryRow = {
  id: string;
  type: string;
  valueDate: string | null;
  status: string;
  attempts: number;
  nextAttemptAt: Date;
  lastAttemptAt: Date | null;
  lastStatus: number | null;
  lastError: string | null;
  deliveredAt: Date | null;
  createdAt: Date;
};
const deliveryFields = {
  id: true,
  type: true,
  valueDate: true,
  status: true,
  attempts: true,
  nextAttemptAt: true,
  lastAttemptAt: true,
  lastStatus: true,
  lastError: true,
  deliveredAt: true,
  createdAt: true,
} as const;

export function createWebhook(data: {
  id: string;
  userId: number;
  url: string;
  currencies: string;
  secret: string;
  notifiedThrough: string;
}): Promise<WebhookRow> {
  return getDb().rateWebhook.create({ data, select: webhookFields });
}

export function countWebhooksOf(userId: number): Promise<number> {
  return getDb().rateWebhook.count({ where: { userId } });
}

export function listWebhooksOf(userId: number): Promise<WebhookRow[]> {
  return getDb().rateWebhook.findMany({ where: { userId }, orderBy: { createdAt: "asc" }, select: webhookFields });
}

export function findWebhookOf(userId: number, id: string): Promise<WebhookRow | null> {
  return getDb().rateWebhook.findFirst({ where: { id, userId }, select: webhookFields });
}

/** Deletes a subscription and its deliveries; false when `userId` has none with that id. */
export async function deleteWebhookOf(userId: number, id: string): Promise<boolean> {
  return (await getDb().rateWebhook.deleteMany({ where: { id, userId } })).count === 1;
}

export function listDeliveriesOf(webhookId: string, take: number): Promise<DeliveryRow[]> {
  return getDb().rateWebhookDelivery.findMany({
    where: { webhookId },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take,
    select: deliveryFields,
  });
}

/** A webhook's newest delivery, or null before its first. */
export function findLastDeliveryOf(webhookId: string): Promise<DeliveryRow | null> {
  return getDb().rateWebhookDelivery.findFirst({
    where: { webhookId },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    select: deliveryFields,
  });
}

export function createDelivery(data: {
  id: string;
  webhookId: string;
  type: string;
  valueDate: string | null;
  payload: string;
}): Promise<DeliveryRow> {
  return getDb().rateWebhookDelivery.create({
    data: { ...data, status: "pending", nextAttemptAt: new Date() },
    select: deliveryFields,
  });
}

/** Subscriptions not yet told of `valueDate`. */
export function listWebhooksBehind(
  valueDate: string,
): Promise<{ id: string; currencies: string; notifiedThrough: string }[]> {
  return getDb().rateWebhook.findMany({
    where: { notifiedThrough: { lt: valueDate } },
    select: { id: true, currencies: true, notifiedThrough: true },
  });
}

/**
 * Records that a subscription was told of `valueDate` and queues the delivery that tells it, in one
 * transaction; nothing when another writer moved it first (compare-and-set on notifiedThrough).
 */
export async function queueValueDateDelivery(
  webhook: { id: string; notifiedThrough: string },
  valueDate: string,
  delivery: { id: string; type: string; payload: string },
): Promise<boolean> {
  return getDb().$transaction(async (tx) => {
    const moved = await tx.rateWebhook.updateMany({
      where: { id: webhook.id, notifiedThrough: webhook.notifiedThrough },
      data: { notifiedThrough: valueDate },
    });
    if (moved.count !== 1) return false;
    await tx.rateWebhookDelivery.create({
      data: { ...delivery, webhookId: webhook.id, valueDate, status: "pending", nextAttemptAt: new Date() },
    });
    return true;
  });
}

/**
 * Whether the dispatcher has anything to do: a subscription behind the newest stored value date (as
 * `listWebhooksBehind` of `findLatestRate`'s date would find), or a pending delivery due by `now` (as
 * `listDueDeliveries` would find). Asked every WEBHOOK_POLL_MS on every instance, and nearly always answered no:
 * one prepared statement (lib/db/hot-sql.ts), so an idle round costs microseconds where Prisma's queries cost a
 * millisecond or more of CPU each.
 */
export async function hasDispatchWork(now: Date): Promise<boolean> {
  const row = await queryOne<{ behind: unknown; due: unknown }>(DISPATCH_WORK_QUERY, [DOLLAR, now]);
  return Boolean(row?.behind) || Boolean(row?.due);
}

const DISPATCH_WORK_QUERY = `SELECT
  EXISTS (SELECT 1 FROM "RateWebhook" WHERE "notifiedThrough" <
    (SELECT MAX("date") FROM "CurrencyRate" WHERE "currency" = ?)) AS "behind",
  EXISTS (SELECT 1 FROM "RateWebhookDelivery" WHERE "status" = 'pending' AND "nextAttemptAt" <= ?) AS "due"`;

export type DueDelivery = {
  id: string;
  webhookId: string;
  attempts: number;
  payload: string;
  webhook: { url: string; secret: string; userId: number };
};

/**
 * Pending deliveries whose next attempt is due, the longest waiting first, one per webhook (its own longest
 * waiting): a webhook with many deliveries waiting is one candidate among the others, never all of them.
 */
export function listDueDeliveries(now: Date, take: number): Promise<DueDelivery[]> {
  return getDb().rateWebhookDelivery.findMany({
    where: { status: "pending", nextAttemptAt: { lte: now } },
    orderBy: [{ nextAttemptAt: "asc" }, { createdAt: "asc" }],
    distinct: ["webhookId"],
    take,
    select: {
      id: true,
      webhookId: true,
      attempts: true,
      payload: true,
      webhook: { select: { url: true, secret: true, userId: true } },
    },
  });
}

/** How many test deliveries of a webhook are still to be made. */
export function countPendingTestDeliveries(webhookId: string): Promise<number> {
  return getDb().rateWebhookDelivery.count({ where: { webhookId, type: "webhook.test", status: "pending" } });
}

/** Removes the deliveries that ended (delivered or given up) before `cutoff`; returns how many. */
export async function pruneEndedDeliveries(cutoff: Date): Promise<number> {
  const { count } = await getDb().rateWebhookDelivery.deleteMany({
    where: { status: { in: ["delivered", "failed"] }, createdAt: { lt: cutoff } },
  });
  return count;
}

/**
 * Takes a due delivery for one attempt: counts the attempt and moves its next attempt to `leaseUntil`, so that
 * if the server dies during the attempt, it is tried again then. False when someone else took it.
 */
export async function claimDelivery(id: string, attempts: number, now: Date, leaseUntil: Date): Promise<boolean> {
  const claimed = await getDb().rateWebhookDelivery.updateMany({
    where: { id, attempts, status: "pending" },
    data: { attempts: attempts + 1, lastAttemptAt: now, nextAttemptAt: leaseUntil },
  });
  return claimed.count === 1;
}

export async function recordAttempt(
  id: string,
  // lastError undefined keeps the previous failure's reason: a delivery that succeeded on a retry still says why
  // its earlier attempt failed.
  outcome: {
    status: "delivered" | "pending" | "failed";
    lastStatus: number | null;
    lastError?: string;
    nextAttemptAt: Date;
  },
): Promise<void> {
  await getDb().rateWebhookDelivery.update({
    where: { id },
    data: { ...outcome, deliveredAt: outcome.status === "delivered" ? new Date() : null },
  });
}
