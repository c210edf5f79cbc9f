import crypto from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AppServer, startAppServer } from "../support/app-server";
import { seedRates, shiftDate, todayAtOffset } from "../support/rates";
import { registerAndGetToken } from "../support/users";

/**
 * Webhooks against a receiver on loopback (127.0.0.1, the only host WEBHOOK_ALLOWED_HOSTS allows here). The
 * refusals are tested with other loopback addresses only: nothing here may reach beyond this machine.
 */
type Mode = "200" | "500" | "302" | "hang";
interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

const received: Received[] = [];
let modes: Mode[] = [];
let stickyMode: Mode = "200";
const hanging: http.ServerResponse[] = [];
const receiver = http.createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on("data", (chunk: Buffer) => chunks.push(chunk));
  request.on("end", () => {
    received.push({ headers: request.headers, body: Buffer.concat(chunks).toString("utf8") });
    const mode = modes.shift() ?? stickyMode;
    if (mode === "hang") return void hanging.push(response);
    if (mode === "302") return void response.writeHead(302, { Location: `http://127.0.0.1:${port}/elsewhere` }).end();
    response.writeHead(Number(mode)).end();
  });
});
let port: number;
let hook: string;

const WEBHOOK_ENV = {
  WEBHOOK_ALLOWED_HOSTS: "127.0.0.1",
  WEBHOOK_POLL_MS: "200",
  WEBHOOK_RETRY_BASE_MS: "300",
  WEBHOOK_TIMEOUT_MS: "1500",
  WEBHOOK_MAX_ATTEMPTS: "5",
};
let app: AppServer;
let authorization: Record<string, string>;
let secret: string;
let webhookId: string;

beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  port = (receiver.address() as AddressInfo).port;
  hook = `http://127.0.0.1:${port}/hooks/bcv`;
  app = await startAppServer(WEBHOOK_ENV);
  ({ authorization } = await registerAndGetToken(app));
});
afterAll(async () => {
  for (const response of hanging) response.destroy();
  await app?.stop();
  receiver.closeAllConnections();
  await new Promise((resolve) => receiver.close(resolve));
});

const post = (path: string, body: unknown, headers = authorization) =>
  app.fetch(path, {
    method: "POST",
    headers: { ...headers, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });

async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function deliveries() {
  const response = await app.fetch(`/rates/webhooks/${webhookId}/deliveries`, { headers: authorization });
  expect(response.status).toBe(200);
  return (await response.json()).deliveries as Record<string, unknown>[];
}

const deliveryOf = (valueDate: string) =>
  waitFor(`the delivery of ${valueDate} to end`, async () =>
    (await deliveries()).find((delivery) => delivery.value_date === valueDate && delivery.status !== "pending"),
  );

/** The signature a Standard Webhooks receiver computes, here with Node's crypto alone. */
function expectSigned(request: Received) {
  const id = String(request.headers["webhook-id"]);
  const timestamp = String(request.headers["webhook-timestamp"]);
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
  const expected = crypto.createHmac("sha256", key).update(`${id}.${timestamp}.${request.body}`).digest("base64");
  expect(request.headers["webhook-signature"]).toBe(`v1,${expected}`);
  expect(Math.abs(Number(timestamp) - Date.now() / 1000)).toBeLessThan(120);
}

describe("POST /rates/webhooks", () => {
  it("needs a signed-in user", async () => {
    expect((await post("/rates/webhooks", { url: hook }, {})).status).toBe(401);
  });

  it("subscribes a URL for some currencies and answers the secret once; the list never shows it", async () => {
    const response = await post("/rates/webhooks", { url: hook, currencies: ["eur", "USD"] });
    expect(response.status).toBe(201);
    const created = await response.json();
    expect(created).toMatchObject({
      id: expect.stringMatching(/^wh_/),
      url: hook,
      currencies: ["EUR", "USD"],
      secret: expect.stringMatching(/^whsec_/),
    });
    ({ id: webhookId, secret } = created);
    const list = await (await app.fetch("/rates/webhooks", { headers: authorization })).json();
    expect(list.webhooks).toEqual([
      { id: webhookId, url: hook, currencies: ["EUR", "USD"], created_at: created.created_at, last_delivery: null },
    ]);
    expect(JSON.stringify(list)).not.toContain(secret);
  });

  it.each([
    ["http://127.0.0.2:PORT/", "127.0.0.2, loopback"],
    ["http://[::1]:PORT/", "::1, loopback"],
    ["http://0.0.0.0:PORT/", "0.0.0.0, this network"],
    // 127.0.0.2 written as one number: the URL parser's normal form is what is checked.
    ["http://2130706434:PORT/", "127.0.0.2, loopback"],
    ["http://[::ffff:127.0.0.2]:PORT/", "::ffff:7f00:2, loopback"],
  ])("refuses %s when only 127.0.0.1 is allowed, naming the address", async (url, named) => {
    const response = await post("/rates/webhooks", { url: url.replace("PORT", String(port)) });
    expect(response.status).toBe(400);
    const problem = await response.json();
    expect(problem.errors[0].field).toBe("body.url");
    expect(problem.detail).toContain(named);
  });

  it("refuses what is not an http(s) URL and unknown currencies", async () => {
    for (const [body, message] of [
      [{ url: "ftp://127.0.0.1/" }, "must be http or https"],
      [{ url: "not a url" }, "is not an absolute URL"],
      [{ url: `http://user:pw@127.0.0.1:${port}/` }, "must not carry a user name or password"],
      [{ url: hook, currencies: ["XXX"] }, "XXX"],
    ] as const) {
      const response = await post("/rates/webhooks", body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect((await response.json()).detail).toContain(message);
    }
    expect((await post("/rates/webhooks", { currencies: "all" })).status).toBe(400);
  });
});

describe("deliveries", () => {
  it("a new value date, whoever stored it: one signed delivery with the subscribed currencies", async () => {
    // Written by another connection, as the import command would.
    seedRates(app, [{ date: "2026-01-05", dollar: "300.12345678", others: { EUR: "350.5", CNY: "41.25" } }]);
    const delivery = await deliveryOf("2026-01-05");
    expect(delivery).toMatchObject({
      type: "rates.published",
      status: "delivered",
      attempts: 1,
      last_status: 200,
      last_error: null,
    });
    const request = received.find((entry) => entry.headers["webhook-id"] === delivery.id)!;
    expectSigned(request);
    expect(request.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(request.body)).toMatchObject({
      type: "rates.published",
      data: {
        value_date: "2026-01-05",
        dollar: 300.12345678,
        rates: { USD: 300.12345678, EUR: 350.5 },
        // The newest value date, long past: the rate in force today.
        in_force: true,
        published_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
        source: { name: "Banco Central de Venezuela", url: "https://www.bcv.org.ve/" },
      },
    });
    expect(JSON.parse(request.body).data.rates).not.toHaveProperty("CNY");
  });

  it("a receiver answering 500 is retried with backoff, with the same delivery id, until it answers 200", async () => {
    modes = ["500", "500"];
    const before = received.length;
    seedRates(app, [{ date: "2026-01-06", dollar: "301" }]);
    const delivery = await deliveryOf("2026-01-06");
    expect(delivery).toMatchObject({ status: "delivered", attempts: 3, last_status: 200, last_error: "answered 500" });
    const attempts = received.slice(before).filter((entry) => entry.headers["webhook-id"] === delivery.id);
    expect(attempts).toHaveLength(3);
    for (const attempt of attempts) expectSigned(attempt);
    // The same bytes every time; the waits grow (300 ms, then 1.2 s, at least).
    expect(new Set(attempts.map((attempt) => attempt.body)).size).toBe(1);
    const times = attempts.map((attempt) => Number(attempt.headers["webhook-timestamp"]));
    expect(times[2] - times[1]).toBeGreaterThanOrEqual(1);
  });

  it("a receiver that hangs: the attempt gives up after WEBHOOK_TIMEOUT_MS and is retried; the server goes on serving", async () => {
    modes = ["hang"];
    seedRates(app, [{ date: "2026-01-07", dollar: "302" }]);
    await waitFor("the hanging attempt", () => (hanging.length > 0 ? true : undefined));
    // While the receiver holds the attempt, reads and the status are answered.
    expect((await app.fetch("/rates/")).status).toBe(200);
    expect((await app.fetch("/rates/status")).status).toBe(200);
    const delivery = await deliveryOf("2026-01-07");
    expect(delivery).toMatchObject({
      status: "delivered",
      attempts: 2,
      last_status: 200,
      last_error: "no answer within 1500 ms",
    });
  });

  it("a redirect is not followed: the attempt fails and is retried", async () => {
    modes = ["302"];
    const before = received.length;
    seedRates(app, [{ date: "2026-01-08", dollar: "303" }]);
    const delivery = await deliveryOf("2026-01-08");
    expect(delivery).toMatchObject({ status: "delivered", attempts: 2 });
    expect(delivery.last_error).toMatch(/^answered 302: redirects are not followed/);
    expect(received.slice(before).some((entry) => entry.headers["webhook-id"] === undefined)).toBe(false);
  });

  it("POST /rates/webhooks/{id}/test sends a signed test delivery", async () => {
    const response = await post(`/rates/webhooks/${webhookId}/test`, {});
    expect(response.status).toBe(202);
    const queued = await response.json();
    expect(queued).toMatchObject({ type: "webhook.test", status: "pending", value_date: null });
    const request = await waitFor("the test delivery", () =>
      received.find((entry) => entry.headers["webhook-id"] === queued.id),
    );
    expectSigned(request);
    expect(JSON.parse(request.body)).toMatchObject({ type: "webhook.test", data: { webhook_id: webhookId } });
  });

  it("GET /rates/webhooks and /rates/webhooks/{id} say each webhook's newest delivery and its outcome", async () => {
    const queued = await (await post(`/rates/webhooks/${webhookId}/test`, {})).json();
    const newest = await waitFor("the test delivery to end", async () =>
      (await deliveries()).find((delivery) => delivery.id === queued.id && delivery.status !== "pending"),
    );
    expect(newest).toMatchObject({ status: "delivered", last_status: 200 });
    const list = await (await app.fetch("/rates/webhooks", { headers: authorization })).json();
    expect(list.webhooks.find((webhook: { id: string }) => webhook.id === webhookId).last_delivery).toEqual(newest);
    const one = await (await app.fetch(`/rates/webhooks/${webhookId}`, { headers: authorization })).json();
    expect(one.last_delivery).toEqual(newest);
  });

  it("another user sees none of them; deleting one stops it", async () => {
    const other = await registerAndGetToken(app);
    for (const path of [`/rates/webhooks/${webhookId}`, `/rates/webhooks/${webhookId}/deliveries`]) {
      expect((await app.fetch(path, { headers: other.authorization })).status).toBe(404);
    }
    expect(
      (await app.fetch(`/rates/webhooks/${webhookId}`, { method: "DELETE", headers: other.authorization })).status,
    ).toBe(404);
    expect((await (await app.fetch("/rates/webhooks", { headers: other.authorization })).json()).webhooks).toEqual([]);

    const extra = await (await post("/rates/webhooks", { url: hook })).json();
    expect((await app.fetch(`/rates/webhooks/${extra.id}`, { method: "DELETE", headers: authorization })).status).toBe(
      204,
    );
    expect((await app.fetch(`/rates/webhooks/${extra.id}`, { headers: authorization })).status).toBe(404);
  });

  it("deliveries pending when the server stops are sent after it starts again", async () => {
    stickyMode = "500";
    const before = received.length;
    seedRates(app, [{ date: "2026-01-09", dollar: "304" }]);
    await waitFor("a failed attempt", () => (received.length > before ? true : undefined));
    const pending = await waitFor("the failed attempt recorded", async () =>
      (await deliveries()).find((delivery) => delivery.value_date === "2026-01-09" && delivery.last_status === 500),
    );
    expect(pending.status).toBe("pending");
    await app.stopProcess("SIGTERM");
    stickyMode = "200";
    app = await startAppServer({ ...WEBHOOK_ENV, DATABASE_URL: `file:${app.databaseFile}` });
    const delivery = await deliveryOf("2026-01-09");
    expect(delivery).toMatchObject({ id: pending.id, status: "delivered", last_status: 200 });
    expect(delivery.attempts as number).toBeGreaterThanOrEqual(2);
  });

  // Last: a value date after today is the newest from here on.
  it("a rate published ahead of its value date (the afternoon's, for tomorrow) is announced with in_force false", async () => {
    const tomorrow = shiftDate(todayAtOffset(-4), 1);
    const before = received.length;
    seedRates(app, [{ date: tomorrow, dollar: "305.5" }]);
    const delivery = await deliveryOf(tomorrow);
    const request = received.slice(before).find((entry) => entry.headers["webhook-id"] === delivery.id)!;
    expect(JSON.parse(request.body).data).toMatchObject({ value_date: tomorrow, dollar: 305.5, in_force: false });
  });
});
