/**
 * `npm run db:migration -- <name>`: after a change to prisma/schema.prisma, brings prisma/postgresql/schema.prisma
 * to the same models (everything below its generator and datasource blocks is copied from the SQLite schema)
 * and writes one new migration for each database, under the same folder name, from the difference between
 * the schemas committed at HEAD and the ones in the working tree. PostgreSQL's migration is computed against
 * a throwaway cluster started for the purpose (Prisma's CLI needs a server even for a diff). Then it
 * regenerates both clients. Read the two migration.sql files before committing them.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startThrowawayPostgresql } from "../tools/throwaway-postgresql";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const prismaBin = path.join(projectRoot, "node_modules", ".bin", "prisma");
const SQLITE_SCHEMA = "prisma/schema.prisma";
const POSTGRESQL_SCHEMA = "prisma/postgresql/schema.prisma";
const POSTGRESQL_CONFIG = "prisma/postgresql/prisma.config.ts";

/** The schema's text split after its datasource block: [generator and datasource, models]. */
function splitSchema(text: string): [string, string] {
  const start = text.indexOf("datasource db {");
  const end = text.indexOf("\n}\n", start);
  if (start < 0 || end < 0) throw new Error("no `datasource db { ... }` block found");
  return [text.slice(0, end + 3), text.slice(end + 3)];
}

/** The file at HEAD, or an empty schema of the same header when it did not exist there. */
function committed(file: string, header: string): string {
  try {
    return execFileSync("git", ["show", `HEAD:${file}`], {
      cwd: projectRoot,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    });
  } catch {
    return header;
  }
}

function diff(from: string, to: string, env: NodeJS.ProcessEnv, config?: string): string {
  const args = ["migrate", "diff", "--from-schema-datamodel", from, "--to-schema-datamodel", to, "--script"];
  if (config) args.push("--config", config);
  return execFileSync(prismaBin, args, {
    cwd: projectRoot,
    env,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
}

async function main() {
  const name = process.argv[2];
  if (!name || !/^[a-z][a-z0-9_]*$/.test(name)) {
    throw new Error("usage: npm run db:migration -- <name>   (the name in snake_case, e.g. build_sleep_state)");
  }
  const sqliteText = fs.readFileSync(path.join(projectRoot, SQLITE_SCHEMA), "utf8");
  const [postgresqlHeader] = splitSchema(fs.readFileSync(path.join(projectRoot, POSTGRESQL_SCHEMA), "utf8"));
  fs.writeFileSync(path.join(projectRoot, POSTGRESQL_SCHEMA), postgresqlHeader + splitSchema(sqliteText)[1]);

  const folder = `${new Date().toISOString().replace(/\D/g, "").slice(0, 14)}_${name}`;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "add-migration-"));
  const cluster = await startThrowawayPostgresql();
  try {
    const previousSqlite = path.join(scratch, "sqlite.prisma");
    fs.writeFileSync(previousSqlite, committed(SQLITE_SCHEMA, splitSchema(sqliteText)[0]));
    const previousPostgresql = path.join(scratch, "postgresql.prisma");
    fs.writeFileSync(previousPostgresql, committed(POSTGRESQL_SCHEMA, postgresqlHeader));
    const written: string[] = [];
    for (const [previous, current, migrations, env, config] of [
      [
        previousSqlite,
        SQLITE_SCHEMA,
        "prisma/migrations",
        { ...process.env, DATABASE_URL: `file:${path.join(scratch, "scratch.db")}` },
        undefined,
      ],
      [
        previousPostgresql,
        POSTGRESQL_SCHEMA,
        "prisma/postgresql/migrations",
        { ...process.env, DATABASE_URL: cluster.url },
        POSTGRESQL_CONFIG,
      ],
    ] as const) {
      const sql = diff(previous, current, env, config);
      if (sql.trim() === "" || /^-- This is an empty migration\.\s*$/.test(sql.trim())) {
        console.log(`${current}: no change since HEAD, no migration written`);
        continue;
      }
      const target = path.join(projectRoot, migrations, folder, "migration.sql");
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.writeFileSync(target, sql);
      written.push(path.relative(projectRoot, target));
    }
    for (const file of written) console.log(`wrote ${file}`);
  } finally {
    cluster.stop();
    fs.rmSync(scratch, { recursive: true, force: true });
  }
  execFileSync("npm", ["run", "db:generate"], { cwd: projectRoot, stdio: "inherit" });
}

main().catch((error) => {
  console.error((error as Error).message);
  process.exit(1);
});
