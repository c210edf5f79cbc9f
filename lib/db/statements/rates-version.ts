import Database from "better-sqlite3";
import { secureDataFolderBeforeOpening } from "../../server/data-folder";
import { getEnv } from "../../server/env";
import { processWide } from "../../server/process-wide";
import { runQuery } from "..";
import { databaseFilePath } from "../database-url";
import { freshReads } from "../fresh-reads";
import { queryOne } from "../hot-sql";

/**
 * The one row of RatesVersion, which triggers on CurrencyRate move on every change (lib/rates/version.ts says
 * why). Asked on every request served from a cache, so: on SQLite one prepared statement on a read-only connection
 * of its own, a few microseconds; on PostgreSQL one prepared statement, one round trip, shared by the requests that
 * asked before it was sent (lib/db/fresh-reads.ts): under load, one round trip a batch instead of one a request,
 * and a write that answered before a request arrived, through any instance, is still seen by that request.
 */
const VERSION_QUERY = `SELECT "version" FROM "RatesVersion" WHERE "id" = 1`;

// On globalThis: Next bundles each route handler apart; the reads of every route share one connection, and on
// PostgreSQL one round trip.
const globalForVersion = processWide<{
  readSqliteRatesVersion?: () => number;
  readPostgresqlRatesVersion?: () => Promise<number>;
}>("readSqliteRatesVersion", () => ({}));

function readOnSqlite(): number {
  if (!globalForVersion.readSqliteRatesVersion) {
    const file = databaseFilePath(getEnv().DATABASE_URL);
    secureDataFolderBeforeOpening(file);
    const connection = new Database(file, { readonly: true, fileMustExist: true });
    const statement = connection.prepare(VERSION_QUERY).pluck();
    globalForVersion.readSqliteRatesVersion = () => statement.get() as number;
  }
  return globalForVersion.readSqliteRatesVersion();
}

function readOnPostgresql(): Promise<number> {
  globalForVersion.readPostgresqlRatesVersion ??= freshReads(
    async () => (await queryOne<{ version: number }>(VERSION_QUERY))!.version,
  );
  return globalForVersion.readPostgresqlRatesVersion();
}

/** On SQLite the version itself, on PostgreSQL a promise of it: a cache hit on SQLite makes no promise at all. */
export function readRatesVersion(): number | Promise<number> {
  return runQuery<number | Promise<number>>({ sqlite: readOnSqlite, postgresql: readOnPostgresql });
}
