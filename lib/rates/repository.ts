import { Prisma } from "@prisma/client";
import { getDb } from "../db";

// Data access for rates. Dates are YYYY-MM-DD text, which sorts in date order, so ranges are string ranges.
const rateFields = { id: true, date: true, dollar: true } as const;

export type StoredRate = { id: number; date: string; dollar: string };

export function findLatestRate(): Promise<StoredRate | null> {
  return getDb().rate.findFirst({ orderBy: { date: "desc" }, select: rateFields });
}

export function findRateByDate(date: string): Promise<StoredRate | null> {
  return getDb().rate.findUnique({ where: { date }, select: rateFields });
}

/** The newest rate dated strictly before `date`. */
export function findLatestRateBefore(date: string): Promise<StoredRate | null> {
  return getDb().rate.findFirst({ where: { date: { lt: date } }, orderBy: { date: "desc" }, select: rateFields });
}

/** The rates from `start` to `end`, both included, newest first. */
export function listRatesBetween(start: string, end: string): Promise<StoredRate[]> {
  return getDb().rate.findMany({
    where: { date: { gte: start, lte: end } },
    orderBy: { date: "desc" },
    select: rateFields,
  });
}

/**
 * Stores the rate of a date: inserts it, or updates the existing row of that date (keeping its id).
 * `created` tells which. Inserting first and updating on the unique-date conflict keeps two concurrent
 * fetches of a new date from both inserting.
 */
export async function saveRate(date: string, dollar: string): Promise<{ rate: StoredRate; created: boolean }> {
  const db = getDb();
  try {
    return { rate: await db.rate.create({ data: { date, dollar }, select: rateFields }), created: true };
  } catch (error) {
    if (!(error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002")) throw error;
    return { rate: await db.rate.update({ where: { date }, data: { dollar }, select: rateFields }), created: false };
  }
}
