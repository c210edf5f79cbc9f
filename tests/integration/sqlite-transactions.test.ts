import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { PrismaClient } from "@prisma/client";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { recoveringSqliteAdapter } from "@/lib/db/sqlite-adapter";

/**
 * Prisma's transactions on SQLite (lib/db/sqlite-adapter.ts) hold the write lock from their first statement. A
 * transaction that reads, then writes, must not fail with SQLITE_BUSY because another connection wrote in
 * between: the soak suite's POST /rates/ answered 503 "database is busy" that way under load.
 */
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sqlite-transactions-"));
const databaseFile = path.join(dir, "app.db");
let prisma: PrismaClient;
let other: Database.Database;

beforeAll(() => {
  fs.copyFileSync(inject("templateDatabase"), databaseFile);
  prisma = new PrismaClient({ adapter: recoveringSqliteAdapter(`file:${databaseFile}`) });
  // Another writer of the same file, as lib/db/sqlite.ts's connection or a second process is: it never waits.
  other = new Database(databaseFile, { timeout: 0 });
});
afterAll(async () => {
  other.close();
  await prisma.$disconnect();
  fs.rmSync(dir, { recursive: true, force: true });
});

const rateRow = (date: string, rate: string) => ({
  date,
  currency: "USD",
  rate,
  source: "home-page",
  fetchedAt: new Date(),
});

describe("a Prisma transaction on SQLite", () => {
  it("reads then writes while another connection tries to write in between: the transaction wins, the other waits its turn", async () => {
    let otherWrite: unknown = "not tried";
    await prisma.$transaction(async (tx) => {
      await tx.currencyRate.findMany({ where: { date: "2026-01-02" } });
      try {
        other
          .prepare(
            "INSERT INTO CurrencyRate (date, currency, rate, source, fetchedAt, createdAt, updatedAt) VALUES ('2026-01-03', 'USD', '2', 'home-page', 0, 0, 0)",
          )
          .run();
        otherWrite = "written";
      } catch (error) {
        otherWrite = (error as { code?: string }).code;
      }
      await tx.currencyRate.create({ data: rateRow("2026-01-02", "1") });
    });
    expect(otherWrite).toBe("SQLITE_BUSY");
    expect(await prisma.currencyRate.count({ where: { date: "2026-01-02" } })).toBe(1);
    // Once the transaction committed, the other connection writes as usual.
    other
      .prepare(
        "INSERT INTO CurrencyRate (date, currency, rate, source, fetchedAt, createdAt, updatedAt) VALUES ('2026-01-03', 'USD', '2', 'home-page', 0, 0, 0)",
      )
      .run();
    expect(await prisma.currencyRate.count({ where: { date: "2026-01-03" } })).toBe(1);
  });
});
