import path from "node:path";
import { PrismaPg } from "@prisma/adapter-pg";
import { defineConfig } from "prisma/config";

// The Prisma CLI's configuration for the PostgreSQL schema (`prisma ... --config prisma/postgresql/prisma.config.ts`):
// generate and `migrate diff` work through it. Migrations are applied by scripts/prepare-start.ts (lib/migrations.ts),
// not by `prisma migrate deploy`, which fails through the pg adapter (prisma/orm#27403).
process.env.PRISMA_SCHEMA_ENGINE_BINARY ??= path.resolve("prisma.config.ts");
process.env.PRISMA_QUERY_ENGINE_LIBRARY ??= path.resolve("prisma.config.ts");

export default defineConfig({
  experimental: { adapter: true },
  engine: "js",
  schema: "schema.prisma",
  migrations: { path: "migrations" },
  async adapter() {
    return new PrismaPg({ connectionString: process.env.DATABASE_URL ?? "postgresql://localhost/app" });
  },
});
