/**
 * `npx tsx bench/queries.ts`: what one rate query costs through Prisma (the app's data access) against a
 * prepared better-sqlite3 statement, in one process on a seeded database (CPU time per query). The read cache
 * makes these the cost of a miss only; kept to show why misses are worth avoiding.
 */
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaClient } from "@prisma/client";
import Database from "better-sqlite3";
import { seedDailyRates, shiftDate } from "./support/seed";
import { makeDatabase } from "./support/servers";

const { databaseFile } = makeDatabase();
const today = new Date().toISOString().slice(0, 10);
seedDailyRates(databaseFile, today);
const prisma = new PrismaClient({ adapter: new PrismaBetterSQLite3({ url: `file:${databaseFile}` }) });
const sqlite = new Database(databaseFile, { readonly: true });
const fields = { id: true, date: true, rate: true } as const;
const latest = sqlite.prepare(
  "SELECT id, date, rate AS dollar FROM CurrencyRate WHERE currency = 'USD' ORDER BY date DESC LIMIT 1",
);
const range = sqlite.prepare(
  "SELECT id, date, rate AS dollar FROM CurrencyRate WHERE currency = 'USD' AND date >= ? AND date <= ? ORDER BY date DESC",
);
const start = shiftDate(today, -3660);

async function time(name: string, iterations: number, run: () => unknown) {
  for (let i = 0; i < Math.min(50, iterations); i++) await run();
  const before = process.cpuUsage();
  for (let i = 0; i < iterations; i++) await run();
  const used = process.cpuUsage(before);
  const micros = (used.user + used.system) / iterations;
  console.log(`${name.padEnd(52)} ${micros.toFixed(0).padStart(7)} µs CPU`);
  return micros;
}

const a = await time("latest rate, Prisma findFirst", 2000, () =>
  prisma.currencyRate.findFirst({ where: { currency: "USD" }, orderBy: { date: "desc" }, select: fields }),
);
const b = await time("latest rate, prepared statement", 2000, () => latest.get());
const c = await time("10-year history (3,661 rows), Prisma findMany", 40, () =>
  prisma.currencyRate.findMany({
    where: { currency: "USD", date: { gte: start, lte: today } },
    orderBy: { date: "desc" },
    select: fields,
  }),
);
const d = await time("10-year history (3,661 rows), prepared statement", 40, () => range.all(start, today));
const rows = range.all(start, today) as { date: string; dollar: string }[];
const e = await time("10-year history: JSON + ETag of the body", 40, async () => {
  const { serializedJson } = await import("../lib/http/cache");
  serializedJson({
    start_date: start,
    end_date: today,
    rates: rows.map((r) => ({ dollar: Number(r.dollar), date: r.date })),
  });
});
console.log(
  `\nPrisma / prepared: ${(a / b).toFixed(1)}× for one row, ${(c / d).toFixed(1)}× for 3,661 rows; serialising the history: ${e.toFixed(0)} µs`,
);
await prisma.$disconnect();
