import { badRequest, conflict, notFound, tooManyRequests } from "../../http/problem";
import { getEnv } from "../../server/env";
import { parseCurrencyList } from "../currencies";
import { findLatestRate } from "../repository";
import { RATE_SOURCE } from "../source";
import { checkDestination, DestinationRefused } from "./destination";
import { nudgeWebhookDeliveries } from "./dispatcher";
import { allowedHosts, randomId } from "./messages";
import {
  countPendingTestDeliveries,
  countWebhooksOf,
  createDelivery,
  createWebhook,
  type DeliveryRow,
  deleteWebhookOf,
  findLastDeliveryOf,
  findWebhookOf,
  listDeliveriesOf,
  listWebhooksOf,
  type WebhookRow,
} from "./repository";
import {
  type CreatedWebhookView,
  type CreateWebhookBody,
  type DeliveryView,
  MAX_WEBHOOKS_PER_USER,
  type WebhookView,
} from "./schemas";
import { newWebhookSecret } from "./signature";
import { describeWebhookUrlProblem, webhookUrlProblem } from "./url";

/**
 * Webhook subscriptions of signed-in users: a URL told of every new value date (rates.published), with the
 * rates of the currencies asked. Deliveries are queued in the database and sent by the dispatcher
 * (lib/rates/webhooks/dispatcher.ts), never by the request or the fetch that caused them.
 */

function toWebhookView(row: WebhookRow, last: DeliveryRow | null): WebhookView {
  return {
    id: row.id,
    url: row.url,
    currencies: row.currencies === "all" ? "all" : row.currencies.split(","),
    created_at: row.createdAt.toISOString(),
    last_delivery: last && toDeliveryView(last),
  };
}

/** A webhook with its newest delivery, as its owner sees it. */
async function withLastDelivery(row: WebhookRow): Promise<WebhookView> {
  return toWebhookView(row, await findLastDeliveryOf(row.id));
}

function toDeliveryView(row: DeliveryRow): DeliveryView {
  return {
    id: row.id,
    type: row.type as DeliveryView["type"],
    value_date: row.valueDate,
    status: row.status as DeliveryView["status"],
    attempts: row.attempts,
    last_attempt_at: row.lastAttemptAt?.toISOString() ?? null,
    last_status: row.lastStatus,
    last_error: row.lastError,
    next_attempt_at: row.status === "pending" ? row.nextAttemptAt.toISOString() : null,
    delivered_at: row.deliveredAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
  };
}

/** 400 naming what is wrong with a webhook URL: not http(s), credentials in it, or a refused destination. */
async function checkedUrl(text: string): Promise<string> {
  const refuse = (message: string) => badRequest(`url ${message}.`, [{ field: "body.url", message }]);
  const problem = webhookUrlProblem(text);
  if (problem) throw refuse(describeWebhookUrlProblem(problem));
  const url = new URL(text);
  url.hash = "";
  try {
    await checkDestination(url, allowedHosts());
  } catch (error) {
    if (error instanceof DestinationRefused) throw refuse(`is refused: ${error.message}`);
    throw error;
  }
  return url.href;
}

export async function subscribe(userId: number, body: CreateWebhookBody): Promise<CreatedWebhookView> {
  const asked = parseCurrencyList(body.currencies === "all" ? "all" : body.currencies.join(","), "body.currencies")!;
  const url = await checkedUrl(body.url);
  if ((await countWebhooksOf(userId)) >= MAX_WEBHOOKS_PER_USER) {
    throw conflict(`You have ${MAX_WEBHOOKS_PER_USER} webhooks, the most one user may have; delete one first.`);
  }
  const secret = newWebhookSecret();
  const row = await createWebhook({
    id: randomId("wh_"),
    userId,
    url,
    currencies: asked === "all" ? "all" : asked.join(","),
    secret,
    // Told only of value dates newer than those stored now.
    notifiedThrough: (await findLatestRate())?.date ?? "",
  });
  return { ...toWebhookView(row, null), secret };
}

export async function listSubscriptions(userId: number): Promise<{ webhooks: WebhookView[] }> {
  return { webhooks: await Promise.all((await listWebhooksOf(userId)).map(withLastDelivery)) };
}

async function ownWebhook(userId: number, id: string): Promise<WebhookRow> {
  const row = await findWebhookOf(userId, id);
  // The same answer for another user's webhook as for none: ids are not disclosed.
  if (!row) throw notFound(`You have no webhook ${id}.`);
  return row;
}

export async function getSubscription(userId: number, id: string): Promise<WebhookView> {
  return withLastDelivery(await ownWebhook(userId, id));
}

export async function unsubscribe(userId: number, id: string): Promise<void> {
  if (!(await deleteWebhookOf(userId, id))) throw notFound(`You have no webhook ${id}.`);
}

export async function listDeliveries(userId: number, id: string): Promise<{ deliveries: DeliveryView[] }> {
  await ownWebhook(userId, id);
  return { deliveries: (await listDeliveriesOf(id, 50)).map(toDeliveryView) };
}

/**
 * Test deliveries a webhook may have waiting at once: enough to try a receiver, not enough to fill the
 * dispatcher with one that never answers (its owner's share is capped too: lib/rates/webhooks/dispatcher.ts).
 */
export const MAX_PENDING_TEST_DELIVERIES = 3;

/** Queues a webhook.test delivery, sent like any other (signed, retried); answers it as queued. */
export async function sendTestDelivery(userId: number, id: string): Promise<DeliveryView> {
  const webhook = await ownWebhook(userId, id);
  if ((await countPendingTestDeliveries(webhook.id)) >= MAX_PENDING_TEST_DELIVERIES) {
    throw tooManyRequests(
      `This webhook has ${MAX_PENDING_TEST_DELIVERIES} test deliveries waiting, the most allowed; try again once they are made.`,
      Math.ceil(getEnv().WEBHOOK_TIMEOUT_MS / 1000),
    );
  }
  const deliveryId = randomId("msg_");
  const payload = JSON.stringify({
    type: "webhook.test",
    timestamp: new Date().toISOString(),
    data: { webhook_id: webhook.id, message: "A test delivery, sent on request.", source: RATE_SOURCE },
  });
  const row = await createDelivery({
    id: deliveryId,
    webhookId: webhook.id,
    type: "webhook.test",
    valueDate: null,
    payload,
  });
  nudgeWebhookDeliveries();
  return toDeliveryView(row);
}
