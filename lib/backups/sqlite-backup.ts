import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { listMigrations } from "../db/postgresql-migrations";

/**
 * Backups of a SQLite database while its server runs and writes (`npm run backup`, scheduled backups), and their
 * restore onto a stopped server (`npm run restore`). A backup is `VACUUM INTO` from a read-only connection of its
 * own: one consistent snapshot that writers cannot restart, unlike the online backup API, which starts over
 * whenever another connection writes and may never finish under steady writes. Beside it goes what a restore
 * needs besides the rows: the generated secret (NEXTAUTH_SECRET's file), without which every token and session
 * of the backup would be refused. Both are mode 0600, as the data folder's own files. On PostgreSQL, pg_dump and
 * pg_restore do all this (README).
 */
export const SECRET_FILE = "nextauth-secret";

/** The SQLite migrations this build ships: a backup whose schema has others comes from a newer build. */
export const SQLITE_MIGRATIONS_FOLDER = path.join("prisma", "migrations");

/** Where a backup keeps the secret of the data folder it was made from. */
export function secretFileOf(backup: string): string {
  return `${backup}.${SECRET_FILE}`;
}

export interface BackupMade {
  file: string;
  bytes: number;
  /** The secret file written beside it; null when the server's secret is not kept in its data folder. */
  secret: string | null;
}

/** Backs the database up into `target` (which must not exist), with the data folder's secret beside it. */
export function backUpSqlite(databaseFile: string, dataDir: string, target: string): BackupMade {
  const file = path.resolve(target);
  if (fs.existsSync(file)) throw new Error(`${file} exists already: a backup never overwrites a file.`);
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  // Written under another name and renamed when whole: a backup interrupted half-way is never taken for one.
  const partial = `${file}.partial-${crypto.randomBytes(4).toString("hex")}`;
  const source = new Database(databaseFile, { readonly: true, fileMustExist: true });
  try {
    // VACUUM INTO creates its file 0644: created here first, empty, so that it is 0600 from its first byte.
    fs.writeFileSync(partial, "", { mode: 0o600, flag: "wx" });
    source.prepare("VACUUM INTO ?").run(partial);
    fs.chmodSync(partial, 0o600);
    fs.renameSync(partial, file);
  } catch (error) {
    fs.rmSync(partial, { force: true });
    throw error;
  } finally {
    source.close();
  }
  let secret: string | null = null;
  const secretSource = path.join(dataDir, SECRET_FILE);
  if (fs.existsSync(secretSource)) {
    secret = secretFileOf(file);
    fs.writeFileSync(secret, fs.readFileSync(secretSource), { mode: 0o600, flag: "wx" });
  }
  return { file, bytes: fs.statSync(file).size, secret };
}

export class RestoreRefused extends Error {}

export interface Restored {
  /** Where the database that the backup replaced was kept (with its -wal and -shm); null when there was none. */
  replaced: string | null;
  secretRestored: boolean;
}

/**
 * Puts a backup in place of the database of a stopped server. The backup must pass `PRAGMA integrity_check` and
 * hold no migration this build does not ship (an older one is migrated at the next start, as any database); the
 * database it replaces is kept beside it, renamed `<name>.replaced-<time>` with its -wal and -shm, and so is the
 * secret. Builds the backup shows in progress or running are the next start's recovery's: it fails those whose
 * runtime it cannot find.
 */
export function restoreSqlite(backup: string, databaseFile: string, dataDir: string): Restored {
  const file = path.resolve(backup);
  if (!fs.existsSync(file)) throw new RestoreRefused(`${file} does not exist.`);
  checkBackup(file);
  const stamp = new Date().toISOString().replace(/[-:.]/g, "");
  let replaced: string | null = null;
  if (fs.existsSync(databaseFile)) {
    replaced = `${databaseFile}.replaced-${stamp}`;
    for (const suffix of ["", "-wal", "-shm"]) {
      if (fs.existsSync(databaseFile + suffix)) fs.renameSync(databaseFile + suffix, replaced + suffix);
    }
  }
  fs.mkdirSync(path.dirname(databaseFile), { recursive: true, mode: 0o700 });
  const partial = `${databaseFile}.restoring-${stamp}`;
  fs.copyFileSync(file, partial);
  fs.chmodSync(partial, 0o600);
  fs.renameSync(partial, databaseFile);
  let secretRestored = false;
  if (fs.existsSync(secretFileOf(file))) {
    const secret = path.join(dataDir, SECRET_FILE);
    if (fs.existsSync(secret)) fs.renameSync(secret, `${secret}.replaced-${stamp}`);
    fs.writeFileSync(secret, fs.readFileSync(secretFileOf(file)), { mode: 0o600, flag: "wx" });
    secretRestored = true;
  }
  return { replaced, secretRestored };
}

/** Refuses a backup that is damaged, is no database of this app, or comes from a newer build. */
function checkBackup(file: string): void {
  let database: Database.Database;
  try {
    database = new Database(file, { readonly: true, fileMustExist: true });
  } catch (error) {
    throw new RestoreRefused(`${file} is not a SQLite database: ${(error as Error).message}`);
  }
  try {
    const integrity = database.pragma("integrity_check", { simple: true });
    if (integrity !== "ok") throw new RestoreRefused(`${file} is damaged: integrity_check says ${String(integrity)}.`);
    let applied: string[];
    try {
      applied = (
        database.prepare(`SELECT "migration_name" FROM "_prisma_migrations" WHERE "finished_at" IS NOT NULL`).all() as {
          migration_name: string;
        }[]
      ).map((row) => row.migration_name);
    } catch {
      throw new RestoreRefused(`${file} is no backup of this app: it has no migrations table.`);
    }
    const shipped = new Set(listMigrations(path.resolve(SQLITE_MIGRATIONS_FOLDER)).map((migration) => migration.name));
    const unknown = applied.filter((name) => !shipped.has(name));
    if (unknown.length > 0) {
      throw new RestoreRefused(
        `${file} comes from a newer build: its schema has migrations this build does not know (${unknown.join(", ")}). ` +
          "Restore it with that build or a newer one.",
      );
    }
  } catch (error) {
    if (error instanceof RestoreRefused) throw error;
    throw new RestoreRefused(`${file} could not be read: ${(error as Error).message}`);
  } finally {
    database.close();
  }
}
