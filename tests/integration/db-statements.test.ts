import { PrismaClient as PostgresqlPrismaClient } from ".prisma/postgresql";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "@prisma/client";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { QueuedBuildRow } from "@/lib/db/statements/enqueue-build";
import { ownLibState } from "../support/in-process-lib";
import { createTestDatabase, dropTestDatabase, TEST_NEXTAUTH_SECRET } from "../support/postgresql";

/**
 * lib/db/statements/: every statement whose spelling differs per database, run on a migrated database, SQLite or
 * PostgreSQL (the integration-postgresql project runs this file again there), each checked against what Prisma
 * reads and writes.
 */
const onPostgresql = inject("testDatabase") === "postgresql";
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "db-statements-"));
let databaseUrl: string;
let prisma: PrismaClient;
let restoreLibState: () => void;
let statements: {
  enqueue: typeof import("@/lib/db/statements/enqueue-build");
  read: typeof import("@/lib/db/statements/read-build");
  ratesVersion: typeof import("@/lib/db/statements/rates-version");
  now: typeof import("@/lib/db/statements/database-now");
  leases: typeof import("@/lib/db/statements/job-leases");
};

const row = (id: string, createdById: number | null = null): QueuedBuildRow => ({
  id,
  modules: ["sale"],
  ttlSeconds: 600,
  createdAt: new Date("2026-11-27T05:00:00.250Z"),
  createdById,
  createdBy: "ana",
  trigger: "manual",
  triggeredBy: "ana",
  driver: "process",
  repositories: [
    { position: 0, alias: "odoo", ref: "17.0", commitSha: "a".repeat(40), commitSubject: "Fix", commitAuthor: "Ana" },
  ],
  stages: ["checkout", "test"],
});
const LIVE = ["queued", "checking_out", "installing", "testing", "starting", "running", "sleeping"];
const unbounded = { maxQueued: 100, liveStatuses: LIVE, live: null, queued: null };

beforeAll(async () => {
  restoreLibState = ownLibState();
  if (onPostgresql) {
    databaseUrl = createTestDatabase();
    Object.assign(process.env, { DATABASE_URL: databaseUrl, NEXTAUTH_SECRET: TEST_NEXTAUTH_SECRET, DATA_DIR: dir });
    prisma = new PostgresqlPrismaClient({
      adapter: new PrismaPg({ connectionString: databaseUrl }),
    }) as unknown as PrismaClient;
  } else {
    const file = path.join(dir, "app.db");
    fs.copyFileSync(inject("templateDatabase"), file);
    databaseUrl = `file:${file}`;
    Object.assign(process.env, { DATABASE_URL: databaseUrl, DATA_DIR: dir });
    prisma = new PrismaClient({ adapter: new PrismaBetterSQLite3({ url: databaseUrl }) });
  }
  statements = {
    enqueue: await import("@/lib/db/statements/enqueue-build"),
    read: await import("@/lib/db/statements/read-build"),
    ratesVersion: await import("@/lib/db/statements/rates-version"),
    now: await import("@/lib/db/statements/database-now"),
    leases: await import("@/lib/db/statements/job-leases"),
  };
});
afterAll(async () => {
  await prisma.$disconnect();
  if (onPostgresql) {
    const { getPool } = await import("@/lib/db/postgresql");
    await getPool().end();
    dropTestDatabase(databaseUrl);
  }
  fs.rmSync(dir, { recursive: true, force: true });
  restoreLibState();
});

describe(`lib/db/statements on ${onPostgresql ? "PostgreSQL" : "SQLite"}`, () => {
  it("enqueue-build inserts a build, its repositories and stages, and read-build reads them as Prisma does", async () => {
    expect(await statements.enqueue.enqueueBuildRow(row("s1"), unbounded)).toBe(true);
    const orm = await prisma.build.findUnique({
      where: { id: "s1" },
      include: { repositories: { orderBy: { position: "asc" } }, stages: { orderBy: { position: "asc" } } },
    });
    expect(orm).toMatchObject({ status: "queued", modules: "sale", createdAt: new Date("2026-11-27T05:00:00.250Z") });
    expect(await statements.read.readBuildWithDetails("s1")).toEqual(orm);
    expect(orm!.stages.map((stage) => [stage.position, stage.name, stage.status])).toEqual([
      [0, "checkout", "pending"],
      [1, "test", "pending"],
    ]);
    expect(await statements.read.readBuildWithDetails("nope")).toBeNull();
  });

  it("enqueue-build refuses a build past the queue's bound or its creator's", async () => {
    const user = await prisma.user.create({ data: { email: "bounds@example.com", passwordHash: "x" } });
    const queued = await prisma.build.count({ where: { status: "queued" } });
    expect(await statements.enqueue.enqueueBuildRow(row("full"), { ...unbounded, maxQueued: queued })).toBe(false);
    expect(await statements.enqueue.enqueueBuildRow(row("u1", user.id), { ...unbounded, live: 1, queued: 1 })).toBe(
      true,
    );
    expect(await statements.enqueue.enqueueBuildRow(row("u2", user.id), { ...unbounded, live: 2, queued: 1 })).toBe(
      false,
    );
    await prisma.build.update({ where: { id: "u1" }, data: { status: "running" } });
    expect(await statements.enqueue.enqueueBuildRow(row("u3", user.id), { ...unbounded, live: 1, queued: 1 })).toBe(
      false,
    );
    expect(await statements.enqueue.enqueueBuildRow(row("u4", user.id), { ...unbounded, live: 2, queued: 1 })).toBe(
      true,
    );
    expect(await prisma.build.count({ where: { id: { in: ["full", "u2", "u3"] } } })).toBe(0);
    expect(await prisma.buildStage.count({ where: { buildId: { in: ["full", "u2", "u3"] } } })).toBe(0);
  });

  it("rates-version moves with every change to the rates, and only then", async () => {
    const before = await statements.ratesVersion.readRatesVersion();
    await prisma.user.create({ data: { email: "other-table@example.com", passwordHash: "x" } });
    expect(await statements.ratesVersion.readRatesVersion()).toBe(before);
    await prisma.currencyRate.create({
      data: { date: "2026-11-27", currency: "USD", rate: "250.5", source: "home-page", fetchedAt: new Date() },
    });
    const afterInsert = await statements.ratesVersion.readRatesVersion();
    expect(afterInsert).not.toBe(before);
    await prisma.currencyRate.deleteMany({ where: { date: "2026-11-27" } });
    expect(await statements.ratesVersion.readRatesVersion()).not.toBe(afterInsert);
  });

  it("database-now reads the database's clock as a Date", async () => {
    const before = Date.now();
    const now = await statements.now.databaseNow();
    expect(now).toBeInstanceOf(Date);
    // The same machine here: the database's clock is this one's.
    expect(Math.abs(now.getTime() - before)).toBeLessThan(5_000);
  });

  it("job-leases takes, renews, refuses and gives back a lease", async () => {
    const { takeLease, releaseLease } = statements.leases;
    expect(await takeLease("statements job", "a:3000", 30)).toBe(true);
    expect(await takeLease("statements job", "a:3000", 30)).toBe(true);
    expect(await takeLease("statements job", "b:3000", 30)).toBe(false);
    const lease = await prisma.jobLease.findUnique({ where: { name: "statements job" } });
    expect(lease?.holder).toBe("a:3000");
    expect(lease!.expiresAt.getTime() - lease!.acquiredAt.getTime()).toBeGreaterThanOrEqual(29_000);
    await releaseLease("statements job", "b:3000");
    expect(await takeLease("statements job", "b:3000", 30)).toBe(false);
    await releaseLease("statements job", "a:3000");
    expect(await takeLease("statements job", "b:3000", 0.05)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 120));
    // Expired: another holder takes it over.
    expect(await takeLease("statements job", "a:3000", 30)).toBe(true);
  });
});
