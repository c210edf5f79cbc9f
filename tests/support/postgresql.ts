import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import { inject } from "vitest";

/** The secret every test server on PostgreSQL shares (required there: lib/env.ts). */
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
