import path from "node:path";
import { processWide } from "../server/process-wide";
import type { DatabaseDialect } from "./database-url";
import { getDialect } from "./dialect";
import { listMigrations, POSTGRESQL_MIGRATIONS_FOLDER } from "./postgresql-migrations";

/**
 * The migrations this build ships for the database in use, read from the project's folder once per process. Both
 * databases record the applied ones in Prisma's `_prisma_migrations` table, with the same columns. The folder is
 * read at run time from the working directory, never bundled: Turbopack is told not to trace the path.
 */
const MIGRATION_FOLDERS = {
  sqlite: path.join("prisma", "migrations"),
  postgresql: POSTGRESQL_MIGRATIONS_FOLDER,
} as const;

const globalForMigrations = processWide<{ shippedMigrations?: string[] }>("shippedMigrations", () => ({}));

export function shippedMigrations(): { database: DatabaseDialect; names: string[] } {
  globalForMigrations.shippedMigrations ??= listMigrations(
    path.resolve(/*turbopackIgnore: true*/ MIGRATION_FOLDERS[getDialect()]),
  ).map((m) => m.name);
  return { database: getDialect(), names: globalForMigrations.shippedMigrations };
}
