import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AppServer, startAppServer } from "../support/app-server";
import { queryDatabase } from "../support/database";

/**
 * GET /healthz and GET /readyz, what a load balancer asks of each instance: alive, and ready (the database
 * answers and holds every migration this build ships). Runs on SQLite and on PostgreSQL.
 */
let app: AppServer;
beforeAll(async () => {
  app = await startAppServer();
});
afterAll(() => app?.stop());

describe("GET /healthz", () => {
  it("answers that the process is alive, never cached", async () => {
    const response = await app.fetch("/healthz");
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(await response.json()).toEqual({ status: "alive" });
  });
});

describe("GET /readyz", () => {
  it("answers ready with the database in use and how many migrations it holds", async () => {
    const applied = queryDatabase(app, `SELECT "migration_name" FROM "_prisma_migrations"`);
    const response = await app.fetch("/readyz");
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      status: "ready",
      database: app.databaseUrl.startsWith("file:") ? "sqlite" : "postgresql",
      migrations: applied.length,
    });
  });

  it("answers 503 naming a migration of this build that the database lacks", async () => {
    const [newest] = queryDatabase<{ migration_name: string }>(
      app,
      `SELECT "migration_name" FROM "_prisma_migrations" ORDER BY "migration_name" DESC LIMIT 1`,
    );
    queryDatabase(
      app,
      {
        sqlite: `UPDATE "_prisma_migrations" SET "rolled_back_at" = "finished_at" WHERE "migration_name" = ?`,
        postgresql: `UPDATE "_prisma_migrations" SET "rolled_back_at" = "finished_at" WHERE "migration_name" = :'params'::json ->> 0`,
      },
      [newest.migration_name],
    );
    const response = await app.fetch("/readyz");
    expect(response.status).toBe(503);
    expect(response.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(response.headers.get("retry-after")).toBe("5");
    expect((await response.json()).detail).toBe(
      `The database lacks migrations of this build: ${newest.migration_name}.`,
    );
  });
});
