import { PrismaClient as PostgresqlPrismaClient } from ".prisma/postgresql";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { isDeepStrictEqual } from "node:util";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "@prisma/client";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { NewBuild } from "@/lib/builds/repository";
import { ownLibState } from "../support/in-process-lib";
import { createTestDatabase, dropTestDatabase, TEST_NEXTAUTH_SECRET } from "../support/postgresql";

/**
 * The builds' raw queries (lib/builds/repository.ts, lib/db/hot-sql.ts) against what Prisma's own queries read and
 * write, on a migrated database, SQLite or PostgreSQL (the integration-postgresql project): the rows they
 * write must read back through Prisma exactly as Prisma would have written them (dates included, which SQLite
 * keeps as text and PostgreSQL as UTC timestamps without a zone), and what they read must equal Prisma's `include`.
 */
const onPostgresql = inject("testDatabase") === "postgresql";
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "builds-repository-"));
const databaseFile = path.join(dir, "app.db");
let databaseUrl: string;
let repository: typeof import("@/lib/builds/repository");
let prisma: PrismaClient;
let restoreLibState: () => void;

const newBuild = (id: string, overrides: Partial<NewBuild> = {}): NewBuild => ({
  id,
  modules: ["sale", "stock"],
  ttlSeconds: 3600,
  createdAt: new Date("2026-11-23T10:00:00.123Z"),
  createdById: null,
  createdBy: "ana",
  trigger: "manual",
  triggeredBy: "ana",
  repositories: [
    { alias: "odoo", ref: "17.0", commitSha: "a".repeat(40), commitSubject: "Fix it", commitAuthor: "Ana" },
    { alias: "addons", ref: "main", commitSha: "b".repeat(40), commitSubject: null, commitAuthor: null },
  ],
  driver: "process",
  stages: ["checkout", "install", "test"],
  ...overrides,
});

const withDetails = {
  repositories: { orderBy: { position: "asc" } },
  stages: { orderBy: { position: "asc" } },
} as const;

beforeAll(async () => {
  restoreLibState = ownLibState();
  if (onPostgresql) {
    databaseUrl = createTestDatabase();
    Object.assign(process.env, { DATABASE_URL: databaseUrl, NEXTAUTH_SECRET: TEST_NEXTAUTH_SECRET, DATA_DIR: dir });
    prisma = new PostgresqlPrismaClient({
      adapter: new PrismaPg({ connectionString: databaseUrl }),
    }) as unknown as PrismaClient;
  } else {
    fs.copyFileSync(inject("templateDatabase"), databaseFile);
    databaseUrl = `file:${databaseFile}`;
    process.env.DATABASE_URL = databaseUrl;
    prisma = new PrismaClient({ adapter: new PrismaBetterSQLite3({ url: databaseUrl }) });
  }
  repository = await import("@/lib/builds/repository");
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

describe("the builds' raw queries", () => {
  it("insert a queued build that reads back through Prisma as Prisma reads it, and refuse one past the queue's limit", async () => {
    const inserted = await repository.insertQueuedBuild(newBuild("b1"), 2);
    const orm = await prisma.build.findUnique({ where: { id: "b1" }, include: withDetails });
    expect(orm).not.toBeNull();
    expect(isDeepStrictEqual(inserted, orm)).toBe(true);
    expect(orm).toMatchObject({
      status: "queued",
      modules: "sale,stock",
      createdAt: new Date("2026-11-23T10:00:00.123Z"),
      expiresAt: null,
    });
    expect(orm!.repositories.map((r) => [r.position, r.alias, r.commitSubject])).toEqual([
      [0, "odoo", "Fix it"],
      [1, "addons", null],
    ]);
    expect(orm!.stages.map((s) => [s.position, s.name, s.status])).toEqual([
      [0, "checkout", "pending"],
      [1, "install", "pending"],
      [2, "test", "pending"],
    ]);
    // Dates are stored in the format Prisma writes, so Prisma's own comparisons (expiry, retention) hold.
    const written = await prisma.build.create({
      data: { id: "orm", status: "failed", modules: "", ttlSeconds: 1, createdAt: new Date(0), createdBy: "x" },
    });
    const formats = await prisma.$queryRaw<
      { id: string; createdAt: string }[]
    >`SELECT "id", CAST("createdAt" AS TEXT) AS "createdAt" FROM "Build" ORDER BY "seq"`;
    if (onPostgresql) {
      // timestamp(3) without a zone, holding UTC whatever the process's TZ.
      expect(formats.map((row) => row.createdAt)).toEqual(["2026-11-23 10:00:00.123", "1970-01-01 00:00:00"]);
    } else {
      expect(formats.map((row) => row.createdAt.replace(/[\d]/g, "9"))).toEqual([
        "9999-99-99T99:99:99.999+99:99",
        "9999-99-99T99:99:99.999+99:99",
      ]);
    }
    await prisma.build.delete({ where: { seq: written.seq } });

    expect(await repository.insertQueuedBuild(newBuild("b2"), 2)).not.toBeNull();
    expect(await repository.insertQueuedBuild(newBuild("b3"), 2)).toBeNull();
    expect(await prisma.build.count({ where: { id: "b3" } })).toBe(0);
    expect(await prisma.buildStage.count({ where: { buildId: "b3" } })).toBe(0);
    expect(await repository.countQueuedBuilds()).toBe(2);
    expect(await repository.queuePosition((await repository.findBuild("b2"))!.seq)).toBe(2);
  });

  it("move a build only from the status read, stamping ends, and update stages and runtimes as Prisma would", async () => {
    const startedAt = new Date("2026-11-23T10:01:00.000Z");
    expect(await repository.moveBuild("b1", "running", "expired")).toBe(false);
    expect(await repository.moveBuild("b1", "queued", "checking_out", { startedAt })).toBe(true);
    expect(await repository.moveBuild("b1", "queued", "checking_out")).toBe(false);
    await repository.updateStage("b1", "checkout", {
      status: "running",
      startedAt,
      logFile: "checkout.log",
      handle: "h1",
    });
    await repository.updateStage("b1", "checkout", {
      status: "failed",
      finishedAt: startedAt,
      exitCode: 128,
      handle: null,
    });
    await repository.updateBuildRuntime("b1", { port: 41000, runtimeHandle: "r1" });
    expect(
      await repository.moveBuild("b1", "checking_out", "failed", { failureStage: "checkout", failureMessage: "no" }),
    ).toBe(true);

    const orm = await prisma.build.findUnique({ where: { id: "b1" }, include: withDetails });
    expect(isDeepStrictEqual(await repository.findBuild("b1"), orm)).toBe(true);
    expect(orm).toMatchObject({
      status: "failed",
      startedAt,
      port: 41000,
      runtimeHandle: "r1",
      failureStage: "checkout",
      failureMessage: "no",
    });
    expect(orm!.endedAt).toBeInstanceOf(Date);
    expect(orm!.stages[0]).toMatchObject({
      status: "failed",
      startedAt,
      finishedAt: startedAt,
      exitCode: 128,
      handle: null,
      logFile: "checkout.log",
    });
    expect(await repository.findBuild("nope")).toBeNull();
  });
});

describe("the app's own connection beside Prisma's (lib/db/hot-sql.ts)", () => {
  it("reads a session's user as Prisma reads it, and whether the session was signed out", async () => {
    const user = await prisma.user.create({
      data: { email: "ana@example.com", passwordHash: "x", displayName: "ana" },
      select: { id: true, email: true, isActive: true, createdAt: true, role: true, displayName: true },
    });
    const { findSessionUser, isSessionRevoked } = await import("@/lib/auth/revocations");
    expect(await isSessionRevoked("sid-1")).toBe(false);
    const found = await findSessionUser("sid-1", user.id);
    expect(found.revoked).toBe(false);
    expect(isDeepStrictEqual(found.user, user)).toBe(true);
    await prisma.revokedSession.create({ data: { sid: "sid-1", expiresAt: new Date(Date.now() + 60_000) } });
    expect(await isSessionRevoked("sid-1")).toBe(true);
    await prisma.user.update({ where: { id: user.id }, data: { isActive: false } });
    expect(await findSessionUser("sid-1", user.id)).toMatchObject({ revoked: true, user: { isActive: false } });
    expect(await findSessionUser("sid-2", 999_999)).toEqual({ revoked: false, user: null });
  });

  it("let no more builds into the queue than its limit, however many posts arrive at once", async () => {
    const before = await repository.countQueuedBuilds();
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, index) => repository.insertQueuedBuild(newBuild(`burst-${index}`), before + 3)),
    );
    expect(results.filter((result) => result !== null)).toHaveLength(3);
    expect(await repository.countQueuedBuilds()).toBe(before + 3);
    expect(await prisma.buildStage.count({ where: { buildId: { startsWith: "burst-" } } })).toBe(3 * 3);
  });

  it.runIf(onPostgresql)(
    "count the queue only once they hold its lock, so a post that waited for another sees that one's build",
    async () => {
      // The holder stands for another post inside enqueue_build: its build is in but not committed, and it
      // holds the queue's lock. A post arriving then must wait, and count that build once it is committed.
      const { getPool } = await import("@/lib/db/postgresql");
      const { advisoryLockKey } = await import("@/lib/db/hot-sql");
      const holder = await getPool().connect();
      try {
        await holder.query("BEGIN");
        await holder.query(`SELECT pg_advisory_xact_lock($1, hashtext(''))`, [advisoryLockKey("buildQueue")]);
        await holder.query(
          `INSERT INTO "Build" ("id", "status", "modules", "ttlSeconds", "createdBy") VALUES ('held-place', 'queued', '', 1, 'x')`,
        );
        const oneFreePlace = (await repository.countQueuedBuilds()) + 1;
        let settled = false;
        const waiting = repository
          .insertQueuedBuild(newBuild("after-held-place"), oneFreePlace)
          .finally(() => (settled = true));
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(settled).toBe(false);
        await holder.query("COMMIT");
        expect(await waiting).toBeNull();
        expect(await repository.countQueuedBuilds()).toBe(oneFreePlace);
      } finally {
        holder.release();
      }
    },
  );

  it("keep a creator within their own limits of live and of queued builds, a null limit being none", async () => {
    const creator = await prisma.user.create({
      data: { email: "limits@example.com", passwordHash: "x", displayName: "limits" },
    });
    const own = (id: string) => newBuild(id, { createdById: creator.id, createdBy: "limits" });
    expect(await repository.insertQueuedBuild(own("own-1"), 100, { live: 2, queued: 1 })).not.toBeNull();
    expect(await repository.insertQueuedBuild(own("own-2"), 100, { live: 2, queued: 1 })).toBeNull();
    expect(await repository.insertQueuedBuild(own("own-2"), 100, { live: 2, queued: null })).not.toBeNull();
    expect(await repository.insertQueuedBuild(own("own-3"), 100, { live: 2, queued: null })).toBeNull();
    // A build in progress is live; one that failed is not. Builds of others (the bursts above) count for neither.
    expect(await repository.moveBuild("own-1", "queued", "checking_out")).toBe(true);
    expect(await repository.insertQueuedBuild(own("own-3"), 100, { live: 2, queued: null })).toBeNull();
    expect(await repository.moveBuild("own-1", "checking_out", "failed")).toBe(true);
    expect(await repository.insertQueuedBuild(own("own-3"), 100, { live: 2, queued: null })).not.toBeNull();
    expect(await repository.countBuildsOfUser(creator.id)).toEqual({ live: 2, queued: 2 });
    expect(await repository.insertQueuedBuild(own("own-4"), 100)).not.toBeNull();
  });

  it.skipIf(onPostgresql)(
    "waits for a Prisma transaction that holds SQLite's write lock without blocking the event loop, then writes",
    async () => {
      // The write lock is per file: another connection's interactive transaction (the test's Prisma client
      // stands for the app's) holds it across awaits, and a synchronous wait would block the loop that ends it.
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let locked!: () => void;
      const lockTaken = new Promise<void>((resolve) => (locked = resolve));
      const transaction = prisma.$transaction(async (tx) => {
        await tx.build.create({ data: { id: "held", status: "failed", modules: "", ttlSeconds: 1, createdBy: "x" } });
        locked();
        await held;
      });
      await lockTaken;
      const insert = repository.insertQueuedBuild(newBuild("waiting"), 100);
      let ticks = 0;
      const ticking = setInterval(() => ticks++, 5);
      try {
        await new Promise((resolve) => setTimeout(resolve, 100));
        expect(ticks).toBeGreaterThan(5);
        expect(await prisma.build.count({ where: { id: "waiting" } })).toBe(0);
      } finally {
        // Released whatever the checks said, or the lock would stall every later test of this file.
        release();
        await transaction;
        clearInterval(ticking);
      }
      expect(await insert).toMatchObject({ id: "waiting", status: "queued" });
      expect(await prisma.build.count({ where: { id: { in: ["held", "waiting"] } } })).toBe(2);
    },
  );
});

describe("the queue's claims (lib/builds/repository.ts claimQueuedBuild)", () => {
  it("give each queued build to one claimer, oldest first, however many instances claim at once", async () => {
    const queued = await prisma.build.findMany({
      where: { status: "queued" },
      orderBy: { seq: "asc" },
      select: { id: true },
    });
    expect(queued.length).toBeGreaterThan(2);
    const at = new Date("2026-11-23T11:00:00.000Z");
    // Eight claimers at once, more than there are builds: on PostgreSQL each its own connection of the pool.
    const claims = await Promise.all(
      Array.from({ length: queued.length + 3 }, (_, index) =>
        repository.claimQueuedBuild(`host-${index % 2}:3000`, at),
      ),
    );
    const claimed = claims.filter((id): id is string => id !== null);
    expect(claimed.sort()).toEqual(queued.map((build) => build.id).sort());
    expect(claims.filter((id) => id === null)).toHaveLength(3);
    const rows = await prisma.build.findMany({ where: { id: { in: claimed } } });
    for (const row of rows)
      expect(row).toMatchObject({
        status: "checking_out",
        host: expect.stringMatching(/^host-[01]:3000$/),
        startedAt: at,
      });

    await repository.insertQueuedBuild(newBuild("older"), 100);
    await repository.insertQueuedBuild(newBuild("newer"), 100);
    expect(await repository.claimQueuedBuild("host-0:3000", at)).toBe("older");
    // A cancel first: the build is no longer queued, and nobody claims it.
    expect(await repository.moveBuild("newer", "queued", "canceled")).toBe(true);
    expect(await repository.claimQueuedBuild("host-0:3000", at)).toBeNull();
  });
});

describe("a lost host's builds (lib/builds/repository.ts failInProgressBuildsOfHost)", () => {
  it("fail the host's builds in progress once, closing their stages and keeping what the host must stop", async () => {
    const at = new Date("2026-11-23T12:00:00.000Z");
    await repository.insertQueuedBuild(newBuild("lost-1"), 100);
    await repository.insertQueuedBuild(newBuild("elsewhere"), 100);
    await repository.insertQueuedBuild(newBuild("still-queued"), 100);
    await prisma.build.updateMany({ where: { id: { in: ["lost-1", "elsewhere"] } }, data: { status: "installing" } });
    await prisma.build.update({ where: { id: "lost-1" }, data: { host: "gone:3000", port: 41001 } });
    await prisma.build.update({ where: { id: "elsewhere" }, data: { host: "alive:3000" } });
    await repository.updateStage("lost-1", "checkout", { status: "succeeded" });
    await repository.updateStage("lost-1", "install", { status: "running", handle: "pgid-handle" });

    // Two instances noticing at once: the build fails once.
    const [first, second] = await Promise.all([
      repository.failInProgressBuildsOfHost("gone:3000", "lost", at),
      repository.failInProgressBuildsOfHost("gone:3000", "lost", at),
    ]);
    expect([...first, ...second]).toEqual(["lost-1"]);
    const lost = await prisma.build.findUnique({ where: { id: "lost-1" }, include: withDetails });
    expect(lost).toMatchObject({
      status: "failed",
      failureStage: "recovery",
      failureMessage: "lost",
      finishedAt: at,
      endedAt: at,
      port: 41001,
    });
    expect(lost!.stages.map((stage) => [stage.name, stage.status, stage.handle])).toEqual([
      ["checkout", "succeeded", null],
      ["install", "failed", "pgid-handle"],
      ["test", "skipped", null],
    ]);
    expect(
      await prisma.build.findMany({
        where: { id: { in: ["elsewhere", "still-queued"] } },
        select: { status: true },
        orderBy: { seq: "asc" },
      }),
    ).toEqual([{ status: "installing" }, { status: "queued" }]);
  });
});
