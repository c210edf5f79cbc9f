import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { inject } from "vitest";
import { startThrowawayPostgresql } from "../../tools/throwaway-postgresql";

const projectRoot = path.resolve(import.meta.dirname, "..", "..");

/** The secret every test server on PostgreSQL shares (required there: lib/server/env.ts). */
export const TEST_NEXTAUTH_SECRET = "test-secret-shared-by-the-postgresql-test-servers";

function adminUrlOf(database: string): string {
  const url = new URL(inject("postgresqlAdminUrl"));
  url.pathname = `/${database}`;
  return url.toString();
}

/** A fresh copy of the suite's migrated template database; returns its URL. */
export function createTestDatabase(): string {
  const name = `app_${crypto.randomBytes(6).toString("hex")}`;
  // The names are ours (a constant and random hex), never input; CREATE DATABASE takes no parameters.
  psql(inject("postgresqlAdminUrl"), `CREATE DATABASE "${name}" TEMPLATE "${inject("templateDatabase")}"`);
  return adminUrlOf(name);
}

export function dropTestDatabase(url: string): void {
  const name = new URL(url).pathname.slice(1);
  psql(inject("postgresqlAdminUrl"), `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
}

function psql(url: string, command: string): void {
  execFileSync("psql", ["-X", "-q", "-v", "ON_ERROR_STOP=1", "-c", command, url], {
    stdio: ["ignore", "ignore", "pipe"],
  });
}

/** A new database with nothing in it (not even migrations), for tests of what a first start does. */
export function emptyTestDatabase(): string {
  const name = `empty_${crypto.randomBytes(6).toString("hex")}`;
  psql(inject("postgresqlAdminUrl"), `CREATE DATABASE "${name}"`);
  return adminUrlOf(name);
}

/**
 * A PostgreSQL cluster of a test file's own (the suite's is shared by every file running at the time), holding a
 * copy of the suite's migrated template: a test may stop and start it (an outage, a restart, a failover) under
 * its servers. `socketUrl` reaches the database while the server listens on its Unix socket only.
 */
export interface OwnPostgresql {
  databaseUrl: string;
  socketUrl: string;
  stopServer(): void;
  startServer(options?: { tcp?: boolean }): void;
  stop(): void;
}

export async function startOwnPostgresql(): Promise<OwnPostgresql> {
  const cluster = await startThrowawayPostgresql();
  try {
    psql(cluster.url, `CREATE DATABASE "app"`);
    if (inject("testDatabase") === "postgresql") {
      // The template's schema and rows, copied across clusters: cheaper than running the migrations again.
      const dump = execFileSync("pg_dump", ["--no-owner", "--no-privileges", adminUrlOf(inject("templateDatabase"))], {
        maxBuffer: 64 * 1024 * 1024,
      });
      execFileSync("psql", ["-X", "-q", "-v", "ON_ERROR_STOP=1", cluster.urlOf("app")], {
        input: dump,
        stdio: ["pipe", "ignore", "pipe"],
      });
    } else {
      // A suite on SQLite (the soak) has no PostgreSQL template: the migration step makes the schema.
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "own-postgresql-migrate-"));
      try {
        execFileSync(path.join(projectRoot, "node_modules", ".bin", "tsx"), ["scripts/prepare-start.ts"], {
          cwd: projectRoot,
          env: {
            ...process.env,
            DATABASE_URL: cluster.urlOf("app"),
            NEXTAUTH_SECRET: TEST_NEXTAUTH_SECRET,
            DATA_DIR: dataDir,
          },
          stdio: ["ignore", "ignore", "pipe"],
        });
      } finally {
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    }
  } catch (error) {
    cluster.stop();
    throw error;
  }
  return {
    databaseUrl: cluster.urlOf("app"),
    socketUrl: `postgresql://postgres@localhost/app?host=${encodeURIComponent(cluster.socketFolder)}&port=${cluster.port}`,
    stopServer: cluster.stopServer,
    startServer: cluster.startServer,
    stop: cluster.stop,
  };
}
