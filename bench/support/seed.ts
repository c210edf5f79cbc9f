import Database from "better-sqlite3";
import pg from "pg";

/** The number of daily rates the benchmark database holds: ten years and a bit, like the measurements. */
export const SEEDED_DAYS = 3_700;

/** A YYYY-MM-DD date moved by whole days (UTC midnights: no daylight-saving slips). */
export function shiftDate(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

/**
 * One rate a day for `days` days ending at `lastDate`, with values that grow like the bolívar's did (8 decimals,
 * as the central bank publishes them). Deterministic, so two runs (and both databases) serve the same bytes.
 */
function dailyRates(lastDate: string, days: number): [date: string, dollar: string][] {
  const first = shiftDate(lastDate, -(days - 1));
  return Array.from({ length: days }, (_, day) => [
    shiftDate(first, day),
    (4.3 * Math.exp(day / 690) + (day % 7) * 0.0137).toFixed(8),
  ]);
}

/** Stores the daily rates straight into a migrated SQLite database file. */
export function seedDailyRates(
  databaseFile: string,
  lastDate: string,
  days = SEEDED_DAYS,
): { first: string; last: string } {
  const database = new Database(databaseFile);
  try {
    const upsert = database.prepare(
      `INSERT INTO CurrencyRate (date, currency, rate, source, fetchedAt, updatedAt) VALUES (?, 'USD', ?, 'home-page', ?, ?)
       ON CONFLICT(date, currency) DO UPDATE SET rate = excluded.rate, updatedAt = excluded.updatedAt`,
    );
    const rates = dailyRates(lastDate, days);
    database.transaction(() => {
      for (const [date, dollar] of rates) upsert.run(date, dollar, Date.now(), Date.now());
    })();
    return { first: rates[0][0], last: lastDate };
  } finally {
    database.close();
  }
}

/** Stores the same daily rates into a migrated PostgreSQL database, in one statement. */
export async function seedDailyRatesPostgresql(
  databaseUrl: string,
  lastDate: string,
  days = SEEDED_DAYS,
): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const rates = dailyRates(lastDate, days);
    await client.query(
      `INSERT INTO "CurrencyRate" ("date", "currency", "rate", "source", "fetchedAt", "updatedAt")
       SELECT date, 'USD', rate, 'home-page', now(), now() FROM unnest($1::text[], $2::text[]) AS seeded(date, rate)`,
      [rates.map(([date]) => date), rates.map(([, dollar]) => dollar)],
    );
  } finally {
    await client.end();
  }
}
