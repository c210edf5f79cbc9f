import Database from "better-sqlite3";
import { secureDataFolderBeforeOpening } from "./data-folder";
import { databaseFilePath } from "./database-url";
import { getEnv } from "./env";

/**
 * Tells whether anything committed to the SQLite file since the last call: SQLite's `PRAGMA data_version`
 * on a connection of our own changes whenever another connection commits, whichever process it is in (the
 * app's Prisma client, a test seeding the file, an import run from the command line). One prepared
 * statement, a few microseconds: cheap enough to ask on every request served from a cache.
 */
interface VersionWatcher {
  read(): number;
}

const globalForVersion = globalThis as unknown as { databaseVersionWatcher?: VersionWatcher };

function watcher(): VersionWatcher {
  if (!globalForVersion.databaseVersionWatcher) {
    const file = databaseFilePath(getEnv().DATABASE_URL);
    secureDataFolderBeforeOpening(file);
    const connection = new Database(file, { readonly: true, fileMustExist: true });
    const statement = connection.prepare("PRAGMA data_version").pluck();
    globalForVersion.databaseVersionWatcher = { read: () => statement.get() as number };
  }
  return globalForVersion.databaseVersionWatcher;
}

/** A number that changes after any commit to the database by any other connection. */
export function databaseVersion(): number {
  return watcher().read();
}
