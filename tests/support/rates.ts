import { expect } from "vitest";
import type { AppServer } from "./app-server";
import { queryDatabase } from "./database";

/**
 * Every currency the bank publishes (its home page and its workbooks), the dollar first and then by code: the
 * order of `currencies=all` and of the exports' columns.
 */
export const BANK_CURRENCIES = [
  "USD",
  "ANG",
  "ARS",
  "BOB",
  "BRL",
  "CAD",
  "CLP",
  "CNY",
  "COP",
  "CUC",
  "DOP",
  "EUR",
  "INR",
  "JPY",
  "MXN",
  "NIO",
  "PEN",
  "RUB",
  "TRY",
  "TTD",
  "UYU",
];

export interface RateRow {
  id: number;
  date: string;
  dollar: string;
}

/**
 * Stores dollar rates straight into the app's database, SQLite or PostgreSQL (replacing the value of a date
 * already there), as if read from the home page. `others` adds other currencies of the same dates:
 * `{EUR: "228.09086692"}`.
 */
export function seedRates(
  app: AppServer,
  rates: { date: string; dollar: string; others?: Record<string, string> }[],
): void {
  const rows = rates.flatMap((rate) =>
    [["USD", rate.dollar], ...Object.entries(rate.others ?? {})].map(([currency, value]) => ({
      date: rate.date,
      currency,
      rate: value,
    })),
  );
  if (app.databaseUrl.startsWith("file:")) {
    // One transaction: a JSON array of rows, read by SQLite's json_each.
    queryDatabase(
      app,
      `INSERT INTO "CurrencyRate" ("date", "currency", "rate", "source", "fetchedAt", "updatedAt")
       SELECT json_extract("value", '$.date'), json_extract("value", '$.currency'), json_extract("value", '$.rate'), 'home-page', ?, ?
       FROM json_each(?) WHERE true
       ON CONFLICT("date", "currency") DO UPDATE SET "rate" = excluded."rate", "updatedAt" = excluded."updatedAt"`,
      [Date.now(), Date.now(), JSON.stringify(rows)],
    );
    return;
  }
  queryDatabase(
    app,
    `INSERT INTO "CurrencyRate" ("date", "currency", "rate", "source", "fetchedAt", "updatedAt")
     SELECT "r"."date", "r"."currency", "r"."rate", 'home-page', now() AT TIME ZONE 'UTC', now() AT TIME ZONE 'UTC'
     FROM json_to_recordset(:'params'::json -> 0) AS "r"("date" TEXT, "currency" TEXT, "rate" TEXT)
     ON CONFLICT ("date", "currency") DO UPDATE SET "rate" = excluded."rate", "updatedAt" = excluded."updatedAt"`,
    [rows],
  );
}

/** Every stored dollar rate, as the database holds it, by date. */
export function readStoredRates(app: AppServer): RateRow[] {
  return queryDatabase<RateRow>(
    app,
    `SELECT "id", "date", "rate" AS "dollar" FROM "CurrencyRate" WHERE "currency" = 'USD' ORDER BY "date"`,
  );
}

export interface CurrencyRateRow {
  id: number;
  date: string;
  currency: string;
  rate: string;
  bid: string | null;
  source: string;
  sourceDetail: string | null;
  updatedAt: number | string;
}

/** Every stored rate of every currency, by date then currency. */
export function readAllStoredRates(app: AppServer): CurrencyRateRow[] {
  return queryDatabase<CurrencyRateRow>(
    app,
    `SELECT "id", "date", "currency", "rate", "bid", "source", "sourceDetail", "updatedAt" FROM "CurrencyRate" ORDER BY "date", "currency"`,
  );
}

export function deleteAllRates(app: AppServer): void {
  queryDatabase(app, `DELETE FROM "CurrencyRate"`);
}

/** Today's calendar date at a fixed UTC offset, computed without the app's helpers. */
export function todayAtOffset(offsetHours: number, now = Date.now()): string {
  return new Date(now + offsetHours * 3_600_000).toISOString().slice(0, 10);
}

/** A YYYY-MM-DD date moved by whole days, computed without the app's helpers. */
export function shiftDate(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

/**
 * Checks the caching contract of a rate read at `path`: ETag and a short public Cache-Control on 200, and 304
 * without a body for an If-None-Match that matches (strong, weak, or one tag of a list). Returns the ETag.
 */
export async function expectConditionalGet(app: AppServer, path: string): Promise<string> {
  const first = await app.fetch(path);
  expect(first.status).toBe(200);
  const body = await first.text();
  const etag = first.headers.get("etag");
  expect(etag).toMatch(/^(W\/)?"[^"]+"$/);
  expect(first.headers.get("cache-control")).toMatch(/^public, max-age=([1-9]\d{0,2})$/);

  const strongTag = etag!.replace(/^W\//, "");
  for (const ifNoneMatch of [etag!, `W/${strongTag}`, `"something-else", ${etag}`, "*"]) {
    const again = await app.fetch(path, { headers: { "If-None-Match": ifNoneMatch } });
    expect(again.status, `If-None-Match: ${ifNoneMatch}`).toBe(304);
    expect(again.headers.get("etag")).toBe(etag);
    expect(again.headers.get("cache-control")).toBe(first.headers.get("cache-control"));
    expect(await again.text()).toBe("");
  }
  const changed = await app.fetch(path, { headers: { "If-None-Match": '"something-else"' } });
  expect(changed.status).toBe(200);
  expect(await changed.text()).toBe(body);
  return etag!;
}

/**
 * A one-rate answer without what it says of itself, `in_force` (a boolean) and `published_at` (an ISO instant),
 * after checking that it says them: for the tests of its other fields. Their values are the subject of
 * rates-today.test.ts. Any other body (a history, a problem) is answered unchanged.
 */
export function rateFields<T>(body: T): T {
  if (body === null || typeof body !== "object" || !("in_force" in body)) return body;
  const { in_force: inForce, published_at: publishedAt, ...rest } = body as Record<string, unknown>;
  expect(typeof inForce).toBe("boolean");
  expect(publishedAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  return rest as T;
}

/** A one-rate answer's text without its `in_force` and `published_at`, for byte-for-byte comparisons. */
export const rateText = (text: string) =>
  text.replace(/,"in_force":(true|false),"published_at":"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z"/, "");
