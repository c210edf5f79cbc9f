import fs from "node:fs";
import path from "node:path";
import { databaseFile } from "../db";
import { getEnv } from "../server/env";
import type { Job } from "../server/job";
import { backUpSqlite, secretFileOf } from "./sqlite-backup";

/**
 * Scheduled backups (BACKUP_DIR, every BACKUP_INTERVAL_HOURS, the newest BACKUP_KEEP kept): a backup of the SQLite
 * database into BACKUP_DIR as `app-<UTC time>.db`, its secret beside it, the oldest beyond the count removed.
 * The first one an interval after the start, so that a server restarting in a loop does not fill the folder. On
 * PostgreSQL the database's own tools back it up (docs/operations.md), and BACKUP_DIR is refused with a warning.
 */
const BACKUP_NAME = /^app-\d{8}T\d{9}Z\.db$/;

/** Where the backups go, or null when there are none: BACKUP_DIR unset, or a database that is not a file. */
function backupTarget(): { database: string; folder: string } | null {
  const env = getEnv();
  const database = databaseFile();
  if (env.BACKUP_DIR === undefined || database === null) return null;
  return { database, folder: path.resolve(env.BACKUP_DIR) };
}

function startScheduledBackups(): void {
  const env = getEnv();
  if (env.BACKUP_DIR === undefined) return;
  const target = backupTarget();
  if (target === null) {
    console.warn("backups: BACKUP_DIR is ignored on PostgreSQL; back it up with pg_dump (docs/operations.md).");
    return;
  }
  fs.mkdirSync(target.folder, { recursive: true, mode: 0o700 });
  console.info(
    `backups: every ${env.BACKUP_INTERVAL_HOURS} h into ${target.folder}, the newest ${env.BACKUP_KEEP} kept`,
  );
}

function backUpNow(database: string, folder: string, keep: number): void {
  const env = getEnv();
  const name = `app-${new Date().toISOString().replace(/[-:.]/g, "")}.db`;
  try {
    const made = backUpSqlite(database, env.DATA_DIR, path.join(folder, name));
    console.info(`backups: ${made.file} (${made.bytes} bytes)`);
  } catch (error) {
    console.error(`backups: the scheduled backup failed: ${(error as Error).message}`);
    return;
  }
  const backups = fs
    .readdirSync(folder)
    .filter((file) => BACKUP_NAME.test(file))
    .sort();
  for (const old of backups.slice(0, Math.max(0, backups.length - keep))) {
    fs.rmSync(path.join(folder, old), { force: true });
    fs.rmSync(secretFileOf(path.join(folder, old)), { force: true });
  }
}

/** Every instance backs up its own SQLite database (there is one per database). */
export const scheduledBackupsJob: Job = {
  name: "scheduled backups",
  runsOn: "each",
  start: startScheduledBackups,
  every: () => (backupTarget() === null ? null : getEnv().BACKUP_INTERVAL_HOURS * 3_600_000),
  run: () => {
    const target = backupTarget();
    if (target) backUpNow(target.database, target.folder, getEnv().BACKUP_KEEP);
  },
};
