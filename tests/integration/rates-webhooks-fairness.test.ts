import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AppServer, startAppServer } from "../support/app-server";
import { queryDatabase } from "../support/database";
import { seedRates } from "../support/rates";
import { registerAndGetToken } from "../support/users";

/**
 * Webhook deliveries shared fairly: one user's receiver that never answers holds none of another user's
 * deliveries, nor the rates.published ones; test deliveries are limited per webhook; old delivery rows are
 * pruned. Two receivers on loopback: one that never answers, one that answers at once.
 */
const hanging: http.ServerResponse[] = [];
const silent = http.createServer((_request, response) => void hanging.push(response));
const arrived: { at: number; type: string }[] = [];
const answering = http.createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on("data", (chunk: Buffer) => chunks.push(chunk));
  request.on("end", () => {
    arrived.push({ at: Date.now(), type: JSON.parse(Buffer.concat(chunks).toString("utf8")).type });
    response.writeHead(200).end();
  });
});

// Long enough that a delivery stuck behind the silent receiver's attempts would show.
const TIMEOUT_MS = 30_000;
let app: AppServer;
let restarted: AppServer | undefined;

const urlOf = (server: http.Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;

beforeAll(async () => {
  for (const server of [silent, answering])
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  app = await startAppServer({
    WEBHOOK_ALLOWED_HOSTS: "127.0.0.1",
    WEBHOOK_POLL_MS: "200",
    WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
  });
});
afterAll(async () => {
  for (const response of hanging) response.destroy();
  await restarted?.stop();
  await app?.stop();
  for (const server of [silent, answering]) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function subscribe(authorization: Record<string, string>, url: string): Promise<string> {
  const response = await app.fetch("/rates/webhooks", {
    method: "POST",
    headers: { ...authorization, "Content-Type": "application/json" },
    body: JSON.stringify({ url }),
  });
  expect(response.status).toBe(201);
  return (await response.json()).id;
}

const sendTest = (authorization: Record<string, string>, id: string) =>
  app.fetch(`/rates/webhooks/${id}/test`, { method: "POST", headers: authorization });

describe("webhook deliveries shared among users", () => {
  it("one user's silent receiver holds none of another's deliveries; test deliveries are limited per webhook", {
    timeout: 60_000,
  }, async () => {
    const greedy = await registerAndGetToken(app);
    const other = await registerAndGetToken(app);
    // Forty test deliveries to a receiver that never answers, over five webhooks.
    const greedyHooks = [];
    for (let i = 0; i < 5; i++) greedyHooks.push(await subscribe(greedy.authorization, urlOf(silent)));
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) {
      const response = await sendTest(greedy.authorization, greedyHooks[i % greedyHooks.length]);
      await response.arrayBuffer();
      statuses.push(response.status);
    }
    expect(statuses.filter((status) => status === 202)).toHaveLength(15);
    const refused = await sendTest(greedy.authorization, greedyHooks[0]);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBe(TIMEOUT_MS / 1000);
    expect((await refused.json()).detail).toMatch(/3 test deliveries waiting/);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(hanging.length).toBeLessThanOrEqual(2);

    // Another user's test delivery, and a new value date for everyone, arrive at once all the same.
    const otherHook = await subscribe(other.authorization, urlOf(answering));
    const asked = Date.now();
    expect((await sendTest(other.authorization, otherHook)).status).toBe(202);
    seedRates(app, [{ date: "2026-02-02", dollar: "400" }]);
    const deadline = Date.now() + 10_000;
    while (
      !(
        arrived.some((entry) => entry.type === "webhook.test") &&
        arrived.some((entry) => entry.type === "rates.published")
      )
    ) {
      if (Date.now() > deadline) throw new Error(`the other user's deliveries waited: ${JSON.stringify(arrived)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(Math.max(...arrived.map((entry) => entry.at)) - asked).toBeLessThan(TIMEOUT_MS / 3);
  });

  it("deliveries that ended more than 30 days ago are pruned; newer ones stay", {
    timeout: 60_000,
  }, async () => {
    const [webhook] = queryDatabase<{ id: string }>(app, `SELECT "id" FROM "RateWebhook" LIMIT 1`);
    const old = Date.now() - 31 * 86_400_000;
    const insert = (id: string, status: string, createdAt: number) =>
      queryDatabase(
        app,
        {
          sqlite: `INSERT INTO "RateWebhookDelivery" ("id", "webhookId", "type", "payload", "status", "attempts", "nextAttemptAt", "createdAt") VALUES (?, ?, 'webhook.test', '{}', ?, 1, ?, ?)`,
          postgresql: `INSERT INTO "RateWebhookDelivery" ("id", "webhookId", "type", "payload", "status", "attempts", "nextAttemptAt", "createdAt") VALUES (:'params'::json->>0, :'params'::json->>1, 'webhook.test', '{}', :'params'::json->>2, 1, to_timestamp((:'params'::json->>3)::bigint / 1000.0) AT TIME ZONE 'UTC', to_timestamp((:'params'::json->>4)::bigint / 1000.0) AT TIME ZONE 'UTC')`,
        },
        // SQLite holds Prisma's DateTime as ISO text with an explicit offset.
        app.databaseUrl.startsWith("file:")
          ? [
              id,
              webhook.id,
              status,
              ...[createdAt, createdAt].map((ms) => new Date(ms).toISOString().replace("Z", "+00:00")),
            ]
          : [id, webhook.id, status, createdAt, createdAt],
      );
    await app.stopProcess();
    insert("msg_old_delivered", "delivered", old);
    insert("msg_old_failed", "failed", old);
    insert("msg_recent_delivered", "delivered", Date.now() - 86_400_000);
    restarted = await startAppServer({
      DATABASE_URL: app.databaseUrl,
      WEBHOOK_ALLOWED_HOSTS: "127.0.0.1",
      WEBHOOK_POLL_MS: "200",
    });
    const ids = () =>
      queryDatabase<{ id: string }>(app, `SELECT "id" FROM "RateWebhookDelivery" WHERE "id" LIKE 'msg_%'`).map(
        (row) => row.id,
      );
    const deadline = Date.now() + 15_000;
    while (ids().includes("msg_old_delivered")) {
      if (Date.now() > deadline) throw new Error("the old deliveries were never pruned");
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(ids()).not.toContain("msg_old_failed");
    expect(ids()).toContain("msg_recent_delivered");
  });
});
