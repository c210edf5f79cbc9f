import type { Prisma } from "@prisma/client";
import Decimal from "decimal.js";
import { getDb } from "../db";
import { DOLLAR } from "./currencies";

// Data access for rates. Dates are YYYY-MM-DD text, which sorts in date order, so ranges are string ranges.
// A "rate" without a currency is the dollar's: what GET /rates/ has always served.

/** `publishedAt`: when this service first stored the date's dollar rate (the fetch, or the workbook's import). */
export type StoredRate = { id: number; date: string; dollar: string; publishedAt: Date };
export type RateSource = "home-page" | "workbook";

const dollarFields = { id: true, date: true, rate: true, createdAt: true } as const;
const toStoredRate = (row: { id: number; date: string; rate: string; createdAt: Date }): StoredRate => ({
  id: row.id,
  date: row.date,
  dollar: row.rate,
  publishedAt: row.createdAt,
});
const orNull = <T, U>(row: T | null, map: (row: T) => U): U | null => (row ? map(row) : null);

export async function findLatestRate(): Promise<StoredRate | null> {
  const row = await getDb().currencyRate.findFirst({
    where: { currency: DOLLAR },
    orderBy: { date: "desc" },
    select: dollarFields,
  });
  return orNull(row, toStoredRate);
}

export async function findRateByDate(date: string): Promise<StoredRate | null> {
  const row = await getDb().currencyRate.findUnique({
    where: { date_currency: { date, currency: DOLLAR } },
    select: dollarFields,
  });
  return orNull(row, toStoredRate);
}

/** The newest dollar rate dated strictly before `date`. */
export async function findLatestRateBefore(date: string): Promise<StoredRate | null> {
  const row = await getDb().currencyRate.findFirst({
    where: { currency: DOLLAR, date: { lt: date } },
    orderBy: { date: "desc" },
    select: dollarFields,
  });
  return orNull(row, toStoredRate);
}

/** The newest dollar rate dated on or before `date`: the rate in force on that date. */
export async function findLatestRateOnOrBefore(date: string): Promise<StoredRate | null> {
  const row = await getDb().currencyRate.findFirst({
    where: { currency: DOLLAR, date: { lte: date } },
    orderBy: { date: "desc" },
    select: dollarFields,
  });
  return orNull(row, toStoredRate);
}

/** The dollar rates from `start` to `end`, both included, newest first. */
export async function listRatesBetween(start: string, end: string): Promise<StoredRate[]> {
  const rows = await getDb().currencyRate.findMany({
    where: { currency: DOLLAR, date: { gte: start, lte: end } },
    orderBy: { date: "desc" },
    select: dollarFields,
  });
  return rows.map(toStoredRate);
}

/**
 * One page of the dollar rates from `start` to `end`, newest first, dated strictly before `before` when given:
 * the exports read a range page by page (keyset pagination on the date), never whole.
 */
export async function listRatesPage(
  start: string,
  end: string,
  before: string | undefined,
  take: number,
): Promise<StoredRate[]> {
  const rows = await getDb().currencyRate.findMany({
    where: { currency: DOLLAR, date: { gte: start, lte: end, ...(before === undefined ? {} : { lt: before }) } },
    orderBy: { date: "desc" },
    take,
    select: dollarFields,
  });
  return rows.map(toStoredRate);
}

/** The oldest and newest value dates of the dollar from `start` to `end`; null when there is none. */
export async function findDateBounds(start: string, end: string): Promise<{ first: string; last: string } | null> {
  const where = { currency: DOLLAR, date: { gte: start, lte: end } };
  const [first, last] = await Promise.all([
    getDb().currencyRate.findFirst({ where, orderBy: { date: "asc" }, select: { date: true } }),
    getDb().currencyRate.findFirst({ where, orderBy: { date: "desc" }, select: { date: true } }),
  ]);
  return first && last ? { first: first.date, last: last.date } : null;
}

export type CurrencyValue = { date: string; currency: string; rate: string };

/** The rates of the given currencies (every one for "all") on the dates from `start` to `end`. */
export function listCurrencyRatesBetween(
  start: string,
  end: string,
  currencies: string[] | "all",
): Promise<CurrencyValue[]> {
  return getDb().currencyRate.findMany({
    where: { date: { gte: start, lte: end }, ...(currencies === "all" ? {} : { currency: { in: currencies } }) },
    orderBy: [{ date: "desc" }, { currency: "asc" }],
    select: { date: true, currency: true, rate: true },
  });
}

/** Of each of `currencies` (every one for "all"), its newest rate dated strictly before `date`. */
export async function listLatestCurrencyRatesBefore(
  date: string,
  currencies: string[] | "all",
): Promise<CurrencyValue[]> {
  const newest = await getDb().currencyRate.groupBy({
    by: ["currency"],
    where: { date: { lt: date }, ...(currencies === "all" ? {} : { currency: { in: currencies } }) },
    _max: { date: true },
  });
  if (newest.length === 0) return [];
  return getDb().currencyRate.findMany({
    where: { OR: newest.map((group) => ({ currency: group.currency, date: group._max.date! })) },
    select: { date: true, currency: true, rate: true },
  });
}

/** The newest date at or before `date` (any, when undefined) on which every one of `currencies` has a rate. */
export async function findLatestDateWithAll(
  currencies: string[],
  date: string | undefined,
): Promise<string | undefined> {
  const groups = await getDb().currencyRate.groupBy({
    by: ["date"],
    where: { currency: { in: currencies }, ...(date === undefined ? {} : { date: { lte: date } }) },
    having: { currency: { _count: { equals: currencies.length } } },
    orderBy: { date: "desc" },
    take: 1,
  });
  return groups[0]?.date;
}

/** The first stored date of each of `currencies` that has any. */
export async function findFirstDates(currencies: string[]): Promise<Map<string, string>> {
  const groups = await getDb().currencyRate.groupBy({
    by: ["currency"],
    where: { currency: { in: currencies } },
    _min: { date: true },
  });
  return new Map(groups.map((group) => [group.currency, group._min.date!]));
}

export type CurrencySummaryRow = { currency: string; firstDate: string; lastDate: string; dates: number };

/** Each stored currency with its first and last date and how many dates it has. */
export async function summarizeCurrencies(): Promise<CurrencySummaryRow[]> {
  const groups = await getDb().currencyRate.groupBy({
    by: ["currency"],
    _min: { date: true },
    _max: { date: true },
    _count: { _all: true },
  });
  return groups.map((group) => ({
    currency: group.currency,
    firstDate: group._min.date!,
    lastDate: group._max.date!,
    dates: group._count._all,
  }));
}

/**
 * Stores what the home page shows for a value date, every currency in one transaction. The page is the bank's
 * own live publication, so it is authoritative for the dates it shows: a value an import stored for that date
 * and currency is replaced when it differs (and kept, with its bid, when it is the same number).
 * `created` tells whether the date's dollar rate is new; `replacedImports` lists the imported values replaced.
 */
export async function saveHomePageRates(
  date: string,
  rates: Record<string, string>,
  pageUrl: string,
): Promise<{
  rate: StoredRate;
  created: boolean;
  replacedImports: { currency: string; imported: string; homePage: string }[];
}> {
  const fetchedAt = new Date();
  return getDb().$transaction(async (tx) => {
    const existing = await tx.currencyRate.findMany({
      where: { date, currency: { in: Object.keys(rates) } },
      select: { id: true, currency: true, source: true, rate: true },
    });
    const byCurrency = new Map(existing.map((row) => [row.currency, row]));
    const replacedImports: { currency: string; imported: string; homePage: string }[] = [];
    for (const [currency, rate] of Object.entries(rates)) {
      const row = byCurrency.get(currency);
      const data = { rate, bid: null, source: "home-page", sourceDetail: pageUrl, fetchedAt, importedById: null };
      if (!row) await tx.currencyRate.create({ data: { date, currency, ...data } });
      else if (row.source === "home-page") await tx.currencyRate.update({ where: { id: row.id }, data });
      else if (!new Decimal(row.rate).equals(rate)) {
        await tx.currencyRate.update({ where: { id: row.id }, data });
        replacedImports.push({ currency, imported: row.rate, homePage: rate });
      }
    }
    const dollar = await tx.currencyRate.findUniqueOrThrow({
      where: { date_currency: { date, currency: DOLLAR } },
      select: dollarFields,
    });
    return { rate: toStoredRate(dollar), created: !byCurrency.has(DOLLAR), replacedImports };
  });
}

export type WorkbookValue = {
  date: string;
  currency: string;
  rate: string;
  bid: string | null;
  sourceDetail: string;
  /** The admin who imported it; null for the operator's command. */
  importedById: number | null;
};
export type StoredValue = {
  id: number;
  date: string;
  currency: string;
  rate: string;
  bid: string | null;
  source: string;
};

/** Runs `work` in one write transaction: a workbook's rates are stored whole or not at all. */
export function inRatesTransaction<T>(work: (tx: Prisma.TransactionClient) => Promise<T>): Promise<T> {
  // A quarter's workbook is about 1,200 rows: well within seconds, but more than the 5 s default allows on a
  // busy machine.
  return getDb().$transaction(work, { timeout: 60_000, maxWait: 30_000 });
}

/** The stored rates of the given dates, every currency. */
export function listStoredValuesOn(tx: Prisma.TransactionClient, dates: string[]): Promise<StoredValue[]> {
  return tx.currencyRate.findMany({
    where: { date: { in: dates } },
    select: { id: true, date: true, currency: true, rate: true, bid: true, source: true },
  });
}

export async function insertWorkbookValues(tx: Prisma.TransactionClient, values: WorkbookValue[], fetchedAt: Date) {
  if (values.length === 0) return;
  await tx.currencyRate.createMany({ data: values.map((value) => ({ ...value, source: "workbook", fetchedAt })) });
}

export async function updateWithWorkbookValue(
  tx: Prisma.TransactionClient,
  id: number,
  value: WorkbookValue,
  fetchedAt: Date,
) {
  await tx.currencyRate.update({
    where: { id },
    data: {
      rate: value.rate,
      bid: value.bid,
      source: "workbook",
      sourceDetail: value.sourceDetail,
      importedById: value.importedById,
      fetchedAt,
    },
  });
}
