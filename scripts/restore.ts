/**
 * `npm run restore -- FILE`: puts a backup made by `npm run backup` in place of the SQLite database, the server
 * stopped; the database it replaces is kept beside it (lib/backups/sqlite-backup.ts). `npm start` then migrates
 * an older schema and its recovery fails the builds whose runtime it cannot find. On PostgreSQL, pg_restore (docs/operations.md).
 */
import { RestoreRefused, restoreSqlite } from "../lib/backups/sqlite-backup";
import { sqliteFileOf } from "../lib/db/database-url";
import { getEnv } from "../lib/server/env";
import { assertNoOtherServer, DataFolderInUseError } from "../lib/server/pid-file";

const backup = process.argv[2];
if (!backup || process.argv.length > 3) {
  console.error("Usage: npm run restore -- FILE");
  process.exit(2);
}
const env = getEnv();
const databaseFile = sqliteFileOf(env.DATABASE_URL);
if (databaseFile === null) {
  console.error("DATABASE_URL is PostgreSQL: restore it with pg_restore (see docs/operations.md, Backups).");
  process.exit(1);
}
try {
  assertNoOtherServer(env.DATA_DIR);
  const restored = restoreSqlite(backup, databaseFile, env.DATA_DIR);
  console.log(`Restored ${backup} into ${databaseFile}.`);
  if (restored.replaced) console.log(`The database it replaced is kept as ${restored.replaced}.`);
  if (!restored.secretRestored) console.log("No secret beside the backup: sign-ins and tokens need NEXTAUTH_SECRET.");
  console.log("Start the server (npm start): it migrates an older schema and fails the builds it cannot find running.");
} catch (error) {
  if (!(error instanceof RestoreRefused || error instanceof DataFolderInUseError)) throw error;
  console.error(`Refusing to restore: ${error.message}`);
  process.exit(1);
}
