import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AppServer, startAppServer } from "../support/app-server";
import { type BcvServer, startBcvServer } from "../support/bcv-server";
import { queryDatabase } from "../support/database";
import { createTestDatabase, dropTestDatabase, emptyTestDatabase, TEST_NEXTAUTH_SECRET } from "../support/postgresql";
import { rateFields, seedRates, shiftDate, todayAtOffset } from "../support/rates";
import { registerAndGetToken, requestToken } from "../support/users";

/**
 * PostgreSQL only (project integration-postgresql): what several instances on one database need. Migrations
 * applied once by instances starting together; users, tokens and rates written through one instance seen
 * through another at once, the other's rate read cache included; and a start without NEXTAUTH_SECRET refused.
 */
const projectRoot = path.resolve(import.meta.dirname, "..", "..");
const run = promisify(execFile);

function prepareStart(env: Record<string, string | undefined>) {
  return run(path.join(projectRoot, "node_modules", ".bin", "tsx"), ["scripts/prepare-start.ts"], {
    cwd: projectRoot,
    env: { ...process.env, ...env },
  });
}

describe("migrations on PostgreSQL", () => {
  // Three tsx processes at once take a minute on a busy two-core machine.
  it("are applied once when three instances start together on an empty database", { timeout: 240_000 }, async () => {
    const url = emptyTestDatabase();
    const dirs = [0, 1, 2].map(() => fs.mkdtempSync(path.join(os.tmpdir(), "pg-instance-")));
    try {
      const outputs = await Promise.all(
        dirs.map((dir) => prepareStart({ DATABASE_URL: url, NEXTAUTH_SECRET: TEST_NEXTAUTH_SECRET, DATA_DIR: dir })),
      );
      const migrations = fs
        .readdirSync(path.join(projectRoot, "prisma", "postgresql", "migrations"))
        .filter((name) =>
          fs.existsSync(path.join(projectRoot, "prisma", "postgresql", "migrations", name, "migration.sql")),
        )
        .sort();
      // One of the three applied them all; the others waited for its lock and found nothing to do.
      const applied = outputs.map(({ stdout }) => /migrations applied: ([^)]*)\)/.exec(stdout)?.[1]).filter(Boolean);
      expect(applied).toEqual([migrations.join(", ")]);
      expect(outputs.filter(({ stdout }) => stdout.includes("(up to date)"))).toHaveLength(2);
      const recorded = queryDatabase<{ migration_name: string }>(
        { databaseUrl: url },
        `SELECT "migration_name" FROM "_prisma_migrations" ORDER BY "migration_name"`,
      );
      expect(recorded.map((row) => row.migration_name)).toEqual(migrations);
      expect(queryDatabase({ databaseUrl: url }, `SELECT "version" FROM "RatesVersion"`)).toEqual([{ version: 0 }]);
    } finally {
      for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
      dropTestDatabase(url);
    }
  });

  it("refuse to start without NEXTAUTH_SECRET, which every instance must share", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pg-instance-"));
    try {
      const failed = await prepareStart({
        DATABASE_URL: createTestDatabase(),
        NEXTAUTH_SECRET: undefined,
        DATA_DIR: dir,
      }).then(
        () => null,
        (error: { code: number; stderr: string }) => error,
      );
      expect(failed?.code).toBe(1);
      expect(failed?.stderr).toMatch(/NEXTAUTH_SECRET: required when DATABASE_URL is PostgreSQL/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("two instances on one PostgreSQL database", () => {
  let bcv: BcvServer;
  let first: AppServer;
  let second: AppServer;
  const today = todayAtOffset(-4);
  const yesterday = shiftDate(today, -1);

  beforeAll(async () => {
    bcv = await startBcvServer();
    first = await startAppServer({ BCV_URL: bcv.url, BCV_RETRIES: "0" });
    second = await startAppServer({ DATABASE_URL: first.databaseUrl, BCV_URL: bcv.url, BCV_RETRIES: "0" });
  });
  afterAll(async () => {
    await second?.stop();
    await first?.stop();
    await bcv?.stop();
  });

  it("share users and tokens: registered through one, signed in and recognised through the other", async () => {
    const { email, password, authorization } = await registerAndGetToken(first);
    const me = await second.fetch("/users/me", { headers: authorization });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ email });
    const token = await requestToken(second, email, password);
    expect(token.status).toBe(200);
  });

  it("see a rate written through the other at once, though the reader had it cached", async () => {
    seedRates(first, [{ date: yesterday, dollar: "100.00000000" }]);
    for (let i = 0; i < 2; i++)
      expect(rateFields(await (await second.fetch("/rates/")).json())).toEqual({ dollar: 100, date: yesterday });
    const { authorization } = await registerAndGetToken(first);
    bcv.setRate({ dollar: "101,50000000", date: today });
    expect((await first.fetch("/rates/", { method: "POST", headers: authorization })).status).toBe(201);
    expect(rateFields(await (await second.fetch("/rates/")).json())).toEqual({ dollar: 101.5, date: today });
  });
});
