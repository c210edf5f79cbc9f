import { getEnv } from "../server/env";
import { type DatabaseDialect, databaseDialect } from "./database-url";

/**
 * The one place that decides which database the app runs on: DATABASE_URL's scheme, read once at start
 * (`file:` SQLite, the default; `postgresql://` PostgreSQL 15+). Each has a Prisma client generated from its own
 * schema; the two schemas define the same models (tests/unit/prisma-schemas.test.ts), so the PostgreSQL client
 * is used through the SQLite client's type. What must differ between the two (the hot prepared queries, the
 * migrations) is spelled side by side in lib/db/statements/ (chosen by runQuery), lib/db/hot-sql.ts and
 * scripts/prepare-start.ts. Nothing outside lib/db/ imports this (.dependency-cruiser.cjs).
 */
export function getDialect(): DatabaseDialect {
  return databaseDialect(getEnv().DATABASE_URL);
}
