import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AppServer, sharedAppServer } from "../support/app-server";
import { queryDatabase } from "../support/database";
import { registerAndGetToken } from "../support/users";

/**
 * GET /healthz and GET /readyz, what a load balancer asks of each instance: alive, and ready (the database
 * answers and holds every migration this build ships). Runs on SQLite and on PostgreSQL.
 */
let app: AppServer;
beforeAll(async () => {
  app = await sharedAppServer();
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
    const markRolledBack = (value: string) =>
      queryDatabase(
        app,
        {
          sqlite: `UPDATE "_prisma_migrations" SET "rolled_back_at" = ${value} WHERE "migration_name" = ?`,
          postgresql: `UPDATE "_prisma_migrations" SET "rolled_back_at" = ${value} WHERE "migration_name" = :'params'::json ->> 0`,
        },
        [newest.migration_name],
      );
    markRolledBack(`"finished_at"`);
    // The server is shared with the worker's next files: the migration is given back.
    try {
      const response = await app.fetch("/readyz");
      expect(response.status).toBe(503);
      expect(response.headers.get("content-type")).toMatch(/^application\/problem\+json/);
      expect(response.headers.get("retry-after")).toBe("5");
      expect((await response.json()).detail).toBe(
        `The database lacks migrations of this build: ${newest.migration_name}.`,
      );
    } finally {
      markRolledBack("NULL");
    }
  });

  it("answers 503 when the database fails its question, with the database's error for an admin only", async () => {
    // The first user registered is the admin; the second is not.
    const admin = await registerAndGetToken(app);
    const user = await registerAndGetToken(app);
    queryDatabase(app, `ALTER TABLE "_prisma_migrations" RENAME TO "_prisma_migrations_away"`);
    try {
      const anonymous = await app.fetch("/readyz");
      expect(anonymous.status).toBe(503);
      expect(anonymous.headers.get("retry-after")).toBe("5");
      expect((await anonymous.json()).detail).toBe("The database does not answer.");
      expect((await (await app.fetch("/readyz", { headers: user.authorization })).json()).detail).toBe(
        "The database does not answer.",
      );
      const asAdmin = await app.fetch("/readyz", { headers: admin.authorization });
      expect(asAdmin.status).toBe(503);
      expect((await asAdmin.json()).detail).toMatch(/^The database does not answer: .*_prisma_migrations/);
    } finally {
      queryDatabase(app, `ALTER TABLE "_prisma_migrations_away" RENAME TO "_prisma_migrations"`);
    }
  });
});
