import Database from "better-sqlite3";
import { secureDataFolderBeforeOpening } from "../server/data-folder";
import { getEnv } from "../server/env";
import { processWide } from "../server/process-wide";
import { databaseFilePath } from "./database-url";

/**
 * SQLite's side of lib/db/hot-sql.ts: a connection of our own to the app's SQLite file, beside Prisma's, for the
 * few queries that run on every request or every stage (the session check, the builds' queue and status). As
 * prepared statements they cost microseconds; through Prisma, even as raw SQL, each costs 0.2–1.5 ms of CPU in
 * its query interpreter and a fresh `prepare` (docs/performance.md). Prisma keeps the schema, the migrations
 * and every other query. Use lib/db/hot-sql.ts, which runs the same queries on PostgreSQL, rather than this.
 *
 * Two connections to one file in WAL mode: reads never wait for a writer, and each connection sees what the
 * other committed. Writes here are synchronous transactions, so this connection never holds the write lock
 * across an await. Prisma's interactive transactions do hold it across awaits; a write here that finds the
 * lock taken must not wait for it synchronously (that would block the event loop that finishes Prisma's
 * transaction), so the connection has no busy timeout and `runStatements` retries on a timer instead.
 */
type Connection = Database.Database;

interface SqliteState {
  connection: Connection;
  statements: Map<string, Database.Statement>;
}

// On globalThis: Next bundles route handlers and instrumentation's jobs apart; they share one connection.
const globalForSqlite = processWide<{ sqliteState?: SqliteState }>("sqliteState", () => ({}));

function state(): SqliteState {
  if (!globalForSqlite.sqliteState) {
    const file = databaseFilePath(getEnv().DATABASE_URL);
    secureDataFolderBeforeOpening(file);
    const connection = new Database(file, { timeout: 0 });
    // Prisma declares the relations as foreign keys with cascades; hold this connection to them too.
    connection.pragma("foreign_keys = ON");
    globalForSqlite.sqliteState = { connection, statements: new Map() };
  }
  return globalForSqlite.sqliteState;
}

/** The prepared statement for `source`, prepared once per process. Sources are constants, never built from input. */
export function statement(source: string): Database.Statement {
  const { connection, statements } = state();
  let prepared = statements.get(source);
  if (!prepared) {
    prepared = connection.prepare(source);
    statements.set(source, prepared);
  }
  return prepared;
}

/** How long a write keeps retrying while another connection holds the write lock: Prisma's longest transaction (a rates import) may take 60 s. */
const BUSY_GIVE_UP_MS = 60_000;

const isBusy = (error: unknown) =>
  typeof (error as { code?: unknown })?.code === "string" && (error as { code: string }).code.startsWith("SQLITE_BUSY");

/**
 * Runs `work` (statements from `statement()`) as one transaction: a write takes the write lock at its start
 * (BEGIN IMMEDIATE), so it runs whole or not at all; a read sees one snapshot of the file. While another
 * connection holds the lock, it retries after 1, 2, 4 … 50 ms, for at most a minute.
 */
export async function runStatements<T>(mode: "read" | "write", work: () => T): Promise<T> {
  const { connection } = state();
  const transaction = connection.transaction(work);
  const giveUpAt = Date.now() + BUSY_GIVE_UP_MS;
  for (let delay = 1; ; delay = Math.min(delay * 2, 50)) {
    try {
      return mode === "write" ? transaction.immediate() : transaction.deferred();
    } catch (error) {
      if (!isBusy(error) || Date.now() >= giveUpAt) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}

/** A date as Prisma's SQLite adapter stores it (ISO 8601 text in UTC), so Prisma's own comparisons hold. */
export function sqlDate(date: Date): string;
export function sqlDate(date: Date | null | undefined): string | null;
export function sqlDate(date: Date | null | undefined): string | null {
  return date ? date.toISOString().replace("Z", "+00:00") : null;
}
