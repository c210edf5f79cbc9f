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
 * pg_restore do all this (docs/operations.md).
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
 * Puts a backup in place of the database of a stopped server. The backup must pass `PRAGMA integrity_check`, hold
 * no migration this build does not ship (an older one is migrated at the next start, as any database), and have
 * the tables, columns and indexes that the migrations it lists make, since the next start migrates by that list
 * and trusts it; nothing is replaced before all of that holds. The
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
    const migrations = listMigrations(path.resolve(SQLITE_MIGRATIONS_FOLDER));
    const shipped = new Set(migrations.map((migration) => migration.name));
    const unknown = applied.filter((name) => !shipped.has(name));
    if (unknown.length > 0) {
      throw new RestoreRefused(
        `${file} comes from a newer build: its schema has migrations this build does not know (${unknown.join(", ")}). ` +
          "Restore it with that build or a newer one.",
      );
    }
    const listed = new Set(applied);
    const differences = schemaDifferences(
      schemaOf(database),
      expectedSchema(migrations.filter((migration) => listed.has(migration.name))),
    );
    if (differences.length > 0) {
      const shown =
        differences.slice(0, 5).join("; ") + (differences.length > 5 ? `; and ${differences.length - 5} more` : "");
      throw new RestoreRefused(
        `${file} is no whole database of this app: its schema is not what the ${applied.length} migrations it lists make (${shown}).`,
      );
    }
  } catch (error) {
    if (error instanceof RestoreRefused) throw error;
    throw new RestoreRefused(`${file} could not be read: ${(error as Error).message}`);
  } finally {
    database.close();
  }
}

/**
 * A schema as a map from each table, column and index to what defines it (type, NOT NULL, default, key; an index's
 * columns and uniqueness), leaving out SQLite's own tables and the migrations table.
 */
type Schema = Map<string, string>;

function schemaOf(database: Database.Database): Schema {
  const schema: Schema = new Map();
  const tables = database
    .prepare(
      `SELECT "name" FROM "sqlite_master" WHERE "type" = 'table' AND "name" NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND "name" <> '_prisma_migrations' ORDER BY "name"`,
    )
    .all() as { name: string }[];
  for (const { name: table } of tables) {
    schema.set(`table ${table}`, "");
    const columns = database.prepare("SELECT * FROM pragma_table_info(?)").all(table) as {
      name: string;
      type: string;
      notnull: number;
      dflt_value: string | null;
      pk: number;
    }[];
    for (const column of columns) {
      const definition = [
        column.type,
        column.notnull ? "NOT NULL" : "",
        column.dflt_value ?? "",
        column.pk ? `key ${column.pk}` : "",
      ];
      schema.set(`column ${table}.${column.name}`, definition.join(" ").replace(/\s+/g, " ").trim());
    }
    const indexes = database.prepare("SELECT * FROM pragma_index_list(?)").all(table) as {
      name: string;
      unique: number;
    }[];
    for (const index of indexes) {
      const columnsOfIndex = database
        .prepare('SELECT "name" FROM pragma_index_info(?) ORDER BY "seqno"')
        .all(index.name) as {
        name: string | null;
      }[];
      schema.set(
        `index ${table}.${index.name}`,
        `${index.unique ? "unique " : ""}(${columnsOfIndex.map((c) => c.name).join(", ")})`,
      );
    }
  }
  return schema;
}

/** The schema these migrations make, applied in order to an empty database in memory. */
function expectedSchema(migrations: { name: string; sql: string }[]): Schema {
  const scratch = new Database(":memory:");
  try {
    for (const migration of migrations) scratch.exec(migration.sql);
    return schemaOf(scratch);
  } finally {
    scratch.close();
  }
}

/** What differs, in words: what is missing, what is there besides, and what is defined otherwise. */
function schemaDifferences(actual: Schema, expected: Schema): string[] {
  const differences: string[] = [];
  for (const [item, definition] of expected) {
    if (!actual.has(item)) differences.push(`no ${item}`);
    else if (actual.get(item) !== definition) differences.push(`${item} is ${actual.get(item)}, not ${definition}`);
  }
  for (const item of actual.keys()) if (!expected.has(item)) differences.push(`an unknown ${item}`);
  return differences;
}
