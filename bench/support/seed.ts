import Database from "better-sqlite3";

/** The number of daily rates the benchmark database holds: ten years and a bit, like the measurements. */
export const SEEDED_DAYS = 3_700;

/** A YYYY-MM-DD date moved by whole days (UTC midnights: no daylight-saving slips). */
export function shiftDate(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

/**
 * Stores one rate a day for `days` days ending at `lastDate` straight into a migrated database file, with
 * values that grow like the bolívar's did (8 decimals, as the central bank publishes them). Deterministic, so
 * two runs serve the same bytes.
 */
export function seedDailyRates(databaseFile: string, lastDate: string, days = SEEDED_DAYS): { first: string; last: string } {
  const database = new Database(databaseFile);
  try {
    const upsert = database.prepare(
      `INSERT INTO CurrencyRate (date, currency, rate, source, fetchedAt, updatedAt) VALUES (?, 'USD', ?, 'home-page', ?, ?)
       ON CONFLICT(date, currency) DO UPDATE SET rate = excluded.rate, updatedAt = excluded.updatedAt`,
    );
    const first = shiftDate(lastDate, -(days - 1));
    database.transaction(() => {
      for (let day = 0; day < days; day++) {
        const dollar = (4.3 * Math.exp(day / 690) + (day % 7) * 0.0137).toFixed(8);
        upsert.run(shiftDate(first, day), dollar, Date.now(), Date.now());
      }
    })();
    return { first, last: lastDate };
  } finally {
    database.close();
  }
}
