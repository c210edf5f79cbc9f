import { runQuery } from "..";
import { queryOne } from "../hot-sql";

/**
 * The current time by the database's clock, the one every instance sharing it agrees on (their own clocks may
 * differ). A SQLite file is on this machine, whose clock is the database's.
 */
export function databaseNow(): Promise<Date> {
  return runQuery({
    sqlite: async () => new Date(),
    // As Prisma keeps DateTime: timestamp(3) without time zone, in UTC; the pool reads it as UTC (lib/db/postgresql.ts).
    postgresql: async () =>
      (await queryOne<{ now: Date }>(`SELECT CAST(now() AT TIME ZONE 'UTC' AS TIMESTAMP(3)) AS "now"`))!.now,
  });
}
