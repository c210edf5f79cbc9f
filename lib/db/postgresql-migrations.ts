import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import pg from "pg";

/**
 * Applies prisma/postgresql/migrations to a PostgreSQL database, each once, in name order. `prisma migrate
 * deploy` would be the tool, but it fails through the pg adapter (prisma/orm#27403, PLATFORM notes), so this
 * does its job the same way: each migration's SQL in one transaction (PostgreSQL's DDL is transactional, so a
 * failing migration leaves nothing half done), recorded in Prisma's own `_prisma_migrations` table with
 * Prisma's checksum, so `prisma migrate status` and, once fixed upstream, `migrate deploy` read the same history.
 *
 * Several instances starting at once against one empty database must not race: the whole run holds a
 * session advisory lock, so one applies and the others wait, then find everything applied.
 */
export const POSTGRESQL_MIGRATIONS_FOLDER = path.join("prisma", "postgresql", "migrations");

/** The advisory lock's key: any constant that no other advisory lock in the database uses. */
const MIGRATION_LOCK_KEY = 7_240_519_019;

export interface MigrationRun {
  applied: string[];
  /** Recorded migrations whose file changed since they ran (Prisma warns about these too). */
  modified: string[];
}

/** The migrations in `folder`, in the order they apply. */
export function listMigrations(folder: string): { name: string; sql: string; checksum: string }[] {
  return fs
    .readdirSync(folder, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && fs.existsSync(path.join(folder, entry.name, "migration.sql")))
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const sql = fs.readFileSync(path.join(folder, name, "migration.sql"), "utf8");
      return { name, sql, checksum: crypto.createHash("sha256").update(sql).digest("hex") };
    });
}

export async function migratePostgresql(url: string, folder: string): Promise<MigrationRun> {
  const migrations = listMigrations(folder);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK_KEY]);
    // Prisma's layout of its history table (migrate deploy creates the same).
    await client.query(`
      CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
        "id" VARCHAR(36) PRIMARY KEY NOT NULL,
        "checksum" VARCHAR(64) NOT NULL,
        "finished_at" TIMESTAMPTZ,
        "migration_name" VARCHAR(255) NOT NULL,
        "logs" TEXT,
        "rolled_back_at" TIMESTAMPTZ,
        "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
        "applied_steps_count" INTEGER NOT NULL DEFAULT 0
      )`);
    const { rows } = await client.query<{ migration_name: string; checksum: string }>(
      `SELECT "migration_name", "checksum" FROM "_prisma_migrations" WHERE "finished_at" IS NOT NULL AND "rolled_back_at" IS NULL`,
    );
    const recorded = new Map(rows.map((row) => [row.migration_name, row.checksum]));
    const run: MigrationRun = { applied: [], modified: [] };
    for (const migration of migrations) {
      const checksum = recorded.get(migration.name);
      if (checksum !== undefined) {
        if (checksum !== migration.checksum) run.modified.push(migration.name);
        continue;
      }
      await client.query("BEGIN");
      try {
        const startedAt = new Date();
        // A query without parameters may hold several statements: the migration file as written.
        await client.query(migration.sql);
        await client.query(
          `INSERT INTO "_prisma_migrations" ("id", "checksum", "finished_at", "migration_name", "started_at", "applied_steps_count")
           VALUES ($1, $2, now(), $3, $4, 1)`,
          [crypto.randomUUID(), migration.checksum, migration.name, startedAt],
        );
        await client.query("COMMIT");
      } catch (error) {
        await client.query("ROLLBACK");
        throw new Error(`migration ${migration.name} failed: ${(error as Error).message}`);
      }
      run.applied.push(migration.name);
    }
    return run;
  } finally {
    // Ending the session releases the advisory lock too; the explicit unlock lets a waiter go on at once.
    await client.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK_KEY]).catch(() => undefined);
    await client.end();
  }
}

/** Names of the migrations in `folder` that the database has not recorded as applied (for /readyz). */
export async function pendingMigrations(client: pg.ClientBase | pg.Pool, folder: string): Promise<string[]> {
  const exists = await client.query(`SELECT to_regclass('"_prisma_migrations"') IS NOT NULL AS "exists"`);
  const recorded = new Set<string>();
  if (exists.rows[0].exists) {
    const { rows } = await client.query<{ migration_name: string }>(
      `SELECT "migration_name" FROM "_prisma_migrations" WHERE "finished_at" IS NOT NULL AND "rolled_back_at" IS NULL`,
    );
    for (const row of rows) recorded.add(row.migration_name);
  }
  return listMigrations(folder)
    .map((migration) => migration.name)
    .filter((name) => !recorded.has(name));
}
