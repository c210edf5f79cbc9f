import path from "node:path";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { defineConfig } from "prisma/config";
import { resolveDatabaseUrl } from "./lib/db/database-url";

// Prisma's CLI looks for native engine files before every command and tries to download them, which cannot
// work on these machines. Point the check at an existing file: the JavaScript engines are the ones used.
process.env.PRISMA_SCHEMA_ENGINE_BINARY ??= path.resolve("prisma.config.ts");
process.env.PRISMA_QUERY_ENGINE_LIBRARY ??= path.resolve("prisma.config.ts");

export default defineConfig({
  experimental: { adapter: true },
  engine: "js",
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
  async adapter() {
    return new PrismaBetterSQLite3({ url: resolveDatabaseUrl(process.env.DATABASE_URL) });
  },
});
