import { execFileSync } from "node:child_process";
import Database from "better-sqlite3";
import { inject } from "vitest";
import type { AppServer } from "./app-server";

/**
 * Which database the integration suite runs the app on: SQLite by default, PostgreSQL in the
 * `integration-postgresql` project (vitest.config.ts), whose global setup starts a throwaway cluster.
 */
export function testDatabase(): "sqlite" | "postgresql" {
  return inject("testDatabase") ?? "sqlite";
}

/**
 * Runs one statement against a test server's database, synchronously, whichever it is, and returns its rows:
 * SQLite through better-sqlite3, PostgreSQL through `psql` (so test helpers stay synchronous). Parameters are
 * passed as one JSON array, read in the SQL as `:'params'::json->>0`... on PostgreSQL and `?` on SQLite, so
 * write the statement with `{ sqlite, postgresql }` when it has parameters.
 */
export function queryDatabase<T = Record<string, unknown>>(
  app: Pick<AppServer, "databaseUrl">,
  sql: string | { sqlite: string; postgresql: string },
  params: unknown[] = [],
): T[] {
  if (app.databaseUrl.startsWith("file:")) {
    const database = new Database(app.databaseUrl.slice("file:".length));
    try {
      const prepared = database.prepare(typeof sql === "string" ? sql : sql.sqlite);
      if (prepared.reader) return prepared.all(...params) as T[];
      prepared.run(...params);
      return [];
    } finally {
      database.close();
    }
  }
  const text = (typeof sql === "string" ? sql : sql.postgresql).trim().replace(/;$/, "");
  // A read's rows come back as one JSON document; a write (which may not be a subquery) returns none.
  const script = /^(SELECT|WITH)\b/i.test(text)
    ? `SELECT COALESCE(json_agg(row_to_json("result")), '[]') FROM (${text}) AS "result";`
    : `${text};`;
  // psql reads the script from stdin (no size limit, unlike arguments); `:'params'` is replaced by the variable,
  // quoted as a literal. In \set's quoted argument a quote is doubled and a backslash escaped.
  const value = JSON.stringify(params).replace(/\\/g, "\\\\").replace(/'/g, "''");
  const output = execFileSync("psql", ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", app.databaseUrl], {
    input: `\\set params '${value}'\n${script}`,
    encoding: "utf8",
  });
  if (!/^(SELECT|WITH)\b/i.test(text)) return [];
  return JSON.parse(output.trim() || "[]") as T[];
}
