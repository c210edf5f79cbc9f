import { createRequire } from "node:module";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "@prisma/client";
import { secureDataFolderBeforeOpening } from "../server/data-folder";
import { getEnv } from "../server/env";
import { processWide } from "../server/process-wide";
import { databaseFilePath } from "./database-url";
import { getDialect } from "./dialect";
import { getPool } from "./postgresql";
import { recoveringSqliteAdapter } from "./sqlite-adapter";

/** Whether several instances can share this database (a PostgreSQL server can; a SQLite file serves one process). */
export function databaseServesSeveralInstances(): boolean {
  return getDialect() === "postgresql";
}

/** The database's file when it is one (SQLite), else null (PostgreSQL, a server that others may share). */
export function databaseFile(): string | null {
  return getDialect() === "sqlite" ? databaseFilePath(getEnv().DATABASE_URL) : null;
}

/**
 * The client generated from prisma/postgresql/schema.prisma (the same models, another provider), loaded only
 * on PostgreSQL. Through `require`: `.prisma/postgresql` is no valid package name for Node's ESM loader (the
 * commands run by tsx), while CommonJS resolves it the way @prisma/client resolves `.prisma/client`.
 */
function loadPostgresqlClient(): typeof import(".prisma/postgresql") {
  return createRequire(import.meta.url)(".prisma/postgresql");
}

/**
 * Runs the spelling of a statement meant for the database in use (umami's runQuery): a statement that must differ
 * per database keeps both spellings side by side in one file of lib/db/statements/, and only this asks which one
 * to run.
 */
export function runQuery<T>(spellings: { readonly sqlite: () => T; readonly postgresql: () => T }): T {
  return spellings[getDialect()]();
}

// One client per process. Next's dev server reloads modules, so the client is kept on globalThis there.
const globalForPrisma = processWide<{ prisma?: PrismaClient }>("prisma", () => ({}));

export function getDb(): PrismaClient {
  if (!globalForPrisma.prisma) {
    if (getDialect() === "postgresql") {
      const { PrismaClient: PostgresqlPrismaClient } = loadPostgresqlClient();
      const client = new PostgresqlPrismaClient({ adapter: new PrismaPg(getPool()) });
      globalForPrisma.prisma = client as unknown as PrismaClient;
    } else {
      secureDataFolderBeforeOpening(databaseFilePath(getEnv().DATABASE_URL));
      globalForPrisma.prisma = new PrismaClient({ adapter: recoveringSqliteAdapter(getEnv().DATABASE_URL) });
    }
  }
  return globalForPrisma.prisma;
}
