import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RELEASE_LEASE_SQL, TAKE_LEASE_SQL } from "@/lib/db/statements/job-leases";

/**
 * The lease statement's SQLite spelling, on a real SQLite database made by the migrations that create the table
 * and add the holder's announced next run.
 * (PostgreSQL's runs in tests/integration/postgresql-cluster-jobs.test.ts, with two instances.)
 */
const migrations = path.resolve(import.meta.dirname, "..", "..", "prisma", "migrations");
const leaseMigrations = fs
  .readdirSync(migrations)
  .filter((name) => name.endsWith("_job_leases") || name.endsWith("_job_lease_next_run"))
  .sort();

let db: Database.Database;
beforeEach(() => {
  db = new Database(":memory:");
  for (const migration of leaseMigrations)
    db.exec(fs.readFileSync(path.join(migrations, migration, "migration.sql"), "utf8"));
});
afterEach(() => db.close());

const take = (name: string, holder: string, ttlSeconds: number) =>
  db.prepare(TAKE_LEASE_SQL.sqlite).run(name, holder, ttlSeconds).changes === 1;
const row = (name: string) =>
  db.prepare(`SELECT * FROM "JobLease" WHERE "name" = ?`).get(name) as Record<string, string>;

describe("JobLease on SQLite", () => {
  it("is taken by the first holder and refused to another while it runs", () => {
    expect(take("rate schedule", "a:3000", 30)).toBe(true);
    expect(take("rate schedule", "b:3000", 30)).toBe(false);
    expect(row("rate schedule").holder).toBe("a:3000");
  });

  it("is renewed by its holder, keeping when it was acquired and moving its expiry", () => {
    take("rate schedule", "a:3000", 1);
    const first = row("rate schedule");
    expect(take("rate schedule", "a:3000", 60)).toBe(true);
    const renewed = row("rate schedule");
    expect(renewed.acquiredAt).toBe(first.acquiredAt);
    expect(renewed.expiresAt > first.expiresAt).toBe(true);
    // As Prisma stores dates on SQLite, so that Prisma reads them back.
    expect(renewed.expiresAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+00:00$/);
  });

  it("goes to another holder once it has expired", () => {
    // A lease that ended a second ago: its holder stopped renewing.
    take("repository polling", "a:3000", -1);
    expect(take("repository polling", "b:3000", 30)).toBe(true);
    expect(row("repository polling").holder).toBe("b:3000");
  });

  it("keeps the next run its holder announced while it renews, and forgets it for a new holder", () => {
    take("rate schedule", "a:3000", 30);
    db.prepare(
      `UPDATE "JobLease" SET "nextRunAt" = '2026-11-24T08:30:00.000+00:00' WHERE "name" = 'rate schedule'`,
    ).run();
    take("rate schedule", "a:3000", -1);
    expect(row("rate schedule").nextRunAt).toBe("2026-11-24T08:30:00.000+00:00");
    // The lease ran out and another instance took the job: the old holder's timers are not its own.
    expect(take("rate schedule", "b:3000", 30)).toBe(true);
    expect(row("rate schedule").nextRunAt).toBeNull();
  });

  it("is given back only by its holder", () => {
    take("rate schedule", "a:3000", 30);
    expect(db.prepare(RELEASE_LEASE_SQL).run("rate schedule", "b:3000").changes).toBe(0);
    expect(db.prepare(RELEASE_LEASE_SQL).run("rate schedule", "a:3000").changes).toBe(1);
    expect(take("rate schedule", "b:3000", 30)).toBe(true);
  });

  it("keeps each job's lease apart", () => {
    expect(take("rate schedule", "a:3000", 30)).toBe(true);
    expect(take("repository polling", "b:3000", 30)).toBe(true);
  });
});
