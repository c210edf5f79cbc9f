import Database from "better-sqlite3";
import { getDialect } from "../db";
import { databaseFilePath } from "../db/database-url";
import { freshReads } from "../db/fresh-reads";
import { queryOne } from "../db/hot-sql";
import { secureDataFolderBeforeOpening } from "../server/data-folder";
import { getEnv } from "../server/env";

/**
 * Tells whether the stored rates changed since the last call, whoever changed them: triggers on CurrencyRate
 * move the one row of RatesVersion on every insert, update and delete (SQLite's migration
 * 20261123150000_rates_version, PostgreSQL's baseline), whichever connection, process or instance writes (the
 * app's Prisma client, the import command, a test seeding the database, another instance on one PostgreSQL).
 * Writes to other tables (a build's stages, a sign-in) leave it alone, so they no longer empty the rate
 * reads' cache as SQLite's `PRAGMA data_version` did. Cheap enough to ask on every request served from a
 * cache: on SQLite one prepared statement on a read-only connection of its own, a few microseconds; on
 * PostgreSQL one prepared statement, one round trip, shared by the requests that asked before it was sent
 * (lib/db/fresh-reads.ts): under load, one round trip a batch instead of one a request, and a write that answered
 * before a request arrived, through any instance, is still seen by that request.
 */
const VERSION_QUERY = `SELECT "version" FROM "RatesVersion" WHERE "id" = 1`;

// On globalThis: Next bundles each route handler apart; the reads of every route share one connection, and on
// PostgreSQL one round trip.
const globalForVersion = globalThis as unknown as {
  readSqliteRatesVersion?: () => number;
  readPostgresqlRatesVersion?: () => Promise<number>;
};

function readSqliteVersion(): number {
  if (!globalForVersion.readSqliteRatesVersion) {
    const file = databaseFilePath(getEnv().DATABASE_URL);
    secureDataFolderBeforeOpening(file);
    const connection = new Database(file, { readonly: true, fileMustExist: true });
    const statement = connection.prepare(VERSION_QUERY).pluck();
    globalForVersion.readSqliteRatesVersion = () => statement.get() as number;
  }
  return globalForVersion.readSqliteRatesVersion();
}

/** A number that changes after any committed change to the stored rates. */
export async function ratesVersion(): Promise<number> {
  if (getDialect() === "sqlite") return readSqliteVersion();
  globalForVersion.readPostgresqlRatesVersion ??= freshReads(
    async () => (await queryOne<{ version: number }>(VERSION_QUERY))!.version,
  );
  return globalForVersion.readPostgresqlRatesVersion();
}
