import pg from "pg";
import { getEnv } from "../server/env";
import { processWide } from "../server/process-wide";

/**
 * The app's pool of PostgreSQL connections, when DATABASE_URL is PostgreSQL: Prisma's pg adapter runs on it
 * (lib/db/index.ts), and so do the hot queries (lib/db/hot-sql.ts), as named prepared statements: each connection
 * parses and plans one once, then only binds and executes it.
 *
 * Prisma writes DateTime columns as `timestamp(3)` without a time zone, holding UTC. `pg` would read such a
 * value as local time, and write a Date as local time with an offset that the column drops; so this pool
 * reads them as UTC, and the hot queries bind dates as UTC ISO strings (lib/db/hot-sql.ts).
 */
const TIMESTAMP_WITHOUT_TIME_ZONE = 1114;

/**
 * A `timestamp(3)` column's text, as PostgreSQL writes it in a row ("2026-11-23 10:01:00.123") or in JSON
 * ("2026-11-23T10:01:00.123"): no zone, holding UTC.
 */
export function parseUtcTimestamp(value: string): Date {
  return new Date(`${value.replace(" ", "T")}Z`);
}

const types = {
  getTypeParser(oid: number, format?: "text" | "binary") {
    if (oid === TIMESTAMP_WITHOUT_TIME_ZONE && format !== "binary") return parseUtcTimestamp;
    return pg.types.getTypeParser(oid, format);
  },
} as pg.CustomTypesConfig;

// On globalThis: Next bundles route handlers and instrumentation's jobs apart; they share one pool.
const globalForPool = processWide<{ postgresqlPool?: pg.Pool }>("postgresqlPool", () => ({}));

/** How many connections one instance opens at most: requests wait for one past that. */
const POOL_SIZE = 10;

export function getPool(): pg.Pool {
  if (!globalForPool.postgresqlPool) {
    const pool = new pg.Pool({ connectionString: getEnv().DATABASE_URL, max: POOL_SIZE, types });
    // An idle connection that the server drops (a restart, a network cut) must not crash the process.
    pool.on("error", (error) => console.error(`postgresql: idle connection lost: ${error.message}`));
    globalForPool.postgresqlPool = pool;
  }
  return globalForPool.postgresqlPool;
}
