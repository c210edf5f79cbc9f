import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AppServer, startAppServer } from "../support/app-server";
import { type OwnPostgresql, startOwnPostgresql } from "../support/postgresql";
import { registerAndGetToken } from "../support/users";

/**
 * PostgreSQL only (project integration-postgresql): the API while its database is stopped. On a cluster of the
 * file's own, stopped under the server: every answer that needs the database is a 503 with Retry-After and a
 * message naming no address (never a 500, never the driver's error), /readyz says not ready, and all answers
 * again once the database is back.
 */
let database: OwnPostgresql;
let app: AppServer;
let authorization: Record<string, string>;

beforeAll(async () => {
  database = await startOwnPostgresql();
  app = await startAppServer({ DATABASE_URL: database.databaseUrl });
  // The first user registered is the admin.
  ({ authorization } = await registerAndGetToken(app));
});
afterAll(async () => {
  await app?.stop();
  database?.stop();
});

/** What an answer must not show: the database's address, port, or the socket's error. */
function expectNoInternals(text: string) {
  expect(text).not.toMatch(/127\.0\.0\.1|ECONN|postgres|:\d{4,5}\b|terminat/i);
}

const NEEDS_THE_DATABASE: { path: string; init?: () => RequestInit }[] = [
  { path: "/readyz" },
  { path: "/builds" },
  { path: "/users/me", init: () => ({ headers: authorization }) },
  {
    path: "/builds",
    init: () => ({
      method: "POST",
      headers: { ...authorization, "Content-Type": "application/json" },
      body: JSON.stringify({ repositories: [{ repository: "demo" }] }),
    }),
  },
];

describe("the API while PostgreSQL is stopped", () => {
  it("answers 503 with Retry-After and a message naming no address, for anyone, admins included; 200 once it is back", {
    timeout: 60_000,
  }, async () => {
    database.stopServer();
    try {
      for (const { path, init } of NEEDS_THE_DATABASE) {
        for (const headers of [{}, authorization]) {
          const request = init?.() ?? {};
          const response = await app.fetch(path, { ...request, headers: { ...request.headers, ...headers } });
          const text = await response.text();
          expect({ path, status: response.status }).toEqual({ path, status: 503 });
          expect(response.headers.get("content-type")).toMatch(/^application\/problem\+json/);
          expect(Number(response.headers.get("retry-after"))).toBeGreaterThan(0);
          expect(JSON.parse(text).detail).toMatch(/database/i);
          expectNoInternals(text);
        }
      }
      // What does not need the database still answers, and nothing answers 500.
      for (const path of ["/healthz", "/rates", "/rates/status", "/currencies", "/app-config", "/openapi.json"]) {
        const response = await app.fetch(path);
        expect({ path, status: response.status }).not.toEqual({ path, status: 500 });
        if (response.status >= 500) expect(response.status).toBe(503);
        expectNoInternals(response.status === 503 ? await response.text() : "");
      }
    } finally {
      database.startServer();
    }
    const deadline = Date.now() + 15_000;
    while ((await app.fetch("/readyz")).status !== 200) {
      if (Date.now() > deadline) throw new Error("the app never got ready again");
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect((await app.fetch("/builds")).status).toBe(200);
    expect((await app.fetch("/users/me", { headers: authorization })).status).toBe(200);
  });
});
