import Database from "better-sqlite3";
import { secureDataFolderBeforeOpening } from "../data-folder";
import { databaseFilePath } from "../database-url";
import { getEnv } from "../env";

/**
 * Tells whether the stored rates changed since the last call, whoever changed them: triggers on CurrencyRate
 * move the one row of RatesVersion on every insert, update and delete (migration 20261123150000_rates_version),
 * whichever connection or process writes (the app's Prisma client, the import command, a test seeding the
 * file). Writes to other tables (a build's stages, a sign-in) leave it alone, so they no longer empty the rate
 * reads' cache as SQLite's `PRAGMA data_version` did. One prepared statement on a read-only connection of its
 * own, a few microseconds: cheap enough to ask on every request served from a cache.
 */
interface VersionWatcher {
  read(): number;
}

const globalForVersion = globalThis as unknown as { ratesVersionWatcher?: VersionWatcher };

function watcher(): VersionWatcher {
  if (!globalForVersion.ratesVersionWatcher) {
    const file = databaseFilePath(getEnv().DATABASE_URL);
    secureDataFolderBeforeOpening(file);
    const connection = new Database(file, { readonly: true, fileMustExist: true });
    const statement = connection.prepare(`SELECT "version" FROM "RatesVersion" WHERE "id" = 1`).pluck();
    globalForVersion.ratesVersionWatcher = { read: () => statement.get() as number };
  }
  return globalForVersion.ratesVersionWatcher;
}

/** A number that changes after any committed change to the stored rates. */
export function ratesVersion(): number {
  return watcher().read();
}
