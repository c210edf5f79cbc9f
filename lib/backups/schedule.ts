import fs from "node:fs";
import path from "node:path";
import { databaseFile } from "../db";
import { getEnv } from "../server/env";
import { processWide } from "../server/process-wide";
import { backUpSqlite, secretFileOf } from "./sqlite-backup";

/**
 * Scheduled backups (BACKUP_DIR, every BACKUP_INTERVAL_HOURS, the newest BACKUP_KEEP kept): a backup of the SQLite
 * database into BACKUP_DIR as `app-<UTC time>.db`, its secret beside it, the oldest beyond the count removed.
 * The first one an interval after the start, so that a server restarting in a loop does not fill the folder. On
 * PostgreSQL the database's own tools back it up (README), and BACKUP_DIR is refused with a warning.
 */
const globalForBackups = processWide<{ backupTimer?: NodeJS.Timeout }>("backupTimer", () => ({}));

const BACKUP_NAME = /^app-\d{8}T\d{9}Z\.db$/;

export function startScheduledBackups(): void {
  const env = getEnv();
  if (env.BACKUP_DIR === undefined) return;
  const file = databaseFile();
  if (file === null) {
    console.warn("backups: BACKUP_DIR is ignored on PostgreSQL; back it up with pg_dump (README).");
    return;
  }
  const folder = path.resolve(env.BACKUP_DIR);
  fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
  const timer = setInterval(() => backUpNow(file, folder, env.BACKUP_KEEP), env.BACKUP_INTERVAL_HOURS * 3_600_000);
  timer.unref();
  globalForBackups.backupTimer = timer;
  console.info(`backups: every ${env.BACKUP_INTERVAL_HOURS} h into ${folder}, the newest ${env.BACKUP_KEEP} kept`);
}

export function stopScheduledBackups(): void {
  clearInterval(globalForBackups.backupTimer);
  globalForBackups.backupTimer = undefined;
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

/** Registered in lib/server/jobs.ts: every instance backs up its own SQLite database (there is one per database). */
export const backupJobs = [{ name: "scheduled backups", start: startScheduledBackups, stop: stopScheduledBackups }];
