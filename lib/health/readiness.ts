import { viewerOf } from "../auth/guard";
import { queryAll } from "../db/hot-sql";
import { shippedMigrations } from "../db/shipped-migrations";
import { serviceUnavailable } from "../http/problem";
import type { Readiness } from "./schemas";

/**
 * What a load balancer asks before sending an instance traffic (GET /readyz): the database answers, and it
 * has applied every migration this build ships (an instance of a newer build started against a database its
 * migration step has not reached yet is not ready). Both databases record applied migrations in Prisma's
 * `_prisma_migrations` table, with the same columns, so one query serves both (lib/db/shipped-migrations.ts). Why the database does not
 * answer (the driver's error, which names its address) is told to admins only; everyone else reads that it
 * does not.
 */
export async function checkReadiness(request: Request): Promise<Readiness> {
  let applied: Set<string>;
  try {
    const rows = await queryAll<{ migration_name: string }>(
      `SELECT "migration_name" FROM "_prisma_migrations" WHERE "finished_at" IS NOT NULL AND "rolled_back_at" IS NULL`,
    );
    applied = new Set(rows.map((row) => row.migration_name));
  } catch (error) {
    // Telling an admin needs the database too: with it away nobody can be told apart, and nobody is told more.
    const viewer = await viewerOf(request).catch(() => null);
    const detail = viewer?.role === "admin" ? `: ${(error as Error).message}` : ".";
    throw serviceUnavailable(`The database does not answer${detail}`, 5);
  }
  const { database, names: shipped } = shippedMigrations();
  const pending = shipped.filter((name) => !applied.has(name));
  if (pending.length > 0)
    throw serviceUnavailable(`The database lacks migrations of this build: ${pending.join(", ")}.`, 5);
  return { status: "ready", database, migrations: shipped.length };
}
