/**
 * `npm run backup -- FILE`: a consistent copy of the SQLite database while the server runs and takes writes, and
 * the server's generated secret beside it (FILE.nextauth-secret), both mode 0600 (lib/backups/sqlite-backup.ts).
 * On PostgreSQL, pg_dump (docs/operations.md).
 */
import { backUpSqlite } from "../lib/backups/sqlite-backup";
import { sqliteFileOf } from "../lib/db/database-url";
import { getEnv } from "../lib/server/env";

const target = process.argv[2];
if (!target || process.argv.length > 3) {
  console.error("Usage: npm run backup -- FILE");
  process.exit(2);
}
const env = getEnv();
const databaseFile = sqliteFileOf(env.DATABASE_URL);
if (databaseFile === null) {
  console.error("DATABASE_URL is PostgreSQL: back it up with pg_dump (see docs/operations.md, Backups).");
  process.exit(1);
}
try {
  const made = backUpSqlite(databaseFile, env.DATA_DIR, target);
  console.log(`Backed up ${databaseFile} into ${made.file} (${made.bytes} bytes).`);
  console.log(
    made.secret
      ? `The secret is beside it: ${made.secret}. Keep both, and keep them private.`
      : "NEXTAUTH_SECRET is set in the environment: keep it with the backup, a restore needs it.",
  );
} catch (error) {
  console.error(`The backup failed: ${(error as Error).message}`);
  process.exit(1);
}
