import crypto from "node:crypto";
import type pg from "pg";
import { processWide } from "../server/process-wide";
import { getDialect } from "./dialect";
import { getPool } from "./postgresql";
import { runStatements, sqlDate, statement } from "./sqlite";

/**
 * The queries that run on every request or every stage (the session check, a build's status and stages),
 * prepared once and run beside Prisma on either database: a query through Prisma costs 0.2–1.5 ms of CPU in its
 * query interpreter (docs/performance.md), a prepared statement a few microseconds on SQLite and one round trip
 * on PostgreSQL. Prisma keeps the schema, the migrations and every other query.
 *
 * A query is written once, with `?` placeholders, and runs on both: SQLite prepares it on the app's own
 * connection (lib/db/sqlite.ts), PostgreSQL as a named prepared statement (`$1`, `$2`... in place of `?`) on the
 * app's pool (lib/db/postgresql.ts). Where the two must differ, both spellings stand side by side as
 * `{ sqlite, postgresql }`. Sources are constants, never built from input; values are always bound.
 *
 * Values bind as Prisma stores them (a Date as UTC text on SQLite, as a UTC timestamp on PostgreSQL; a boolean
 * as 0/1 on SQLite); rows come back raw: pass them through `asPrismaRow` for Dates and booleans.
 */
export type Sql = string | { readonly sqlite: string; readonly postgresql: string };

/** One statement of a transaction, yielded by the work function and run by the dialect's driver. */
export interface Step {
  readonly kind: "get" | "all" | "run" | "lock";
  readonly sql: Sql;
  readonly args: readonly unknown[];
}

/** Inside `transaction`: `const row = yield* get(sql, args)`. */
export function* get<T = Record<string, unknown>>(
  sql: Sql,
  args: readonly unknown[] = [],
): Generator<Step, T | undefined, unknown> {
  return (yield { kind: "get", sql, args }) as T | undefined;
}
export function* all<T = Record<string, unknown>>(
  sql: Sql,
  args: readonly unknown[] = [],
): Generator<Step, T[], unknown> {
  return (yield { kind: "all", sql, args }) as T[];
}
/** Runs a write; returns how many rows it changed. */
export function* run(sql: Sql, args: readonly unknown[] = []): Generator<Step, number, unknown> {
  return (yield { kind: "run", sql, args }) as number;
}

export type Work<T> = () => Generator<Step, T, unknown>;

/**
 * Runs `work`'s statements as one transaction. A write runs whole or not at all, and on SQLite holds the
 * database's one write lock from its start (writes are serialised); PostgreSQL has no such lock, so a write
 * whose check must hold until its commit (a count, then an insert) takes one itself (`lockStep`). A read sees
 * one snapshot. The work is a generator so that the same code runs synchronously inside SQLite's transaction
 * (which must not await) and asynchronously on a PostgreSQL connection.
 */
export async function transaction<T>(mode: "read" | "write", work: Work<T>): Promise<T> {
  if (getDialect() === "sqlite") return runStatements(mode, () => driveSqlite(work()));
  const client = await getPool().connect();
  try {
    await client.query(mode === "write" ? "BEGIN" : "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
    const result = await drivePostgresql(client, work());
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/** One statement on its own (no transaction around it beyond the statement's own). */
export async function queryOne<T = Record<string, unknown>>(
  sql: Sql,
  args: readonly unknown[] = [],
): Promise<T | undefined> {
  if (getDialect() === "sqlite") return statement(sqliteSource(sql)).get(...args.map(sqliteValue)) as T | undefined;
  return (await postgresqlQuery(getPool(), sql, args)).rows[0] as T | undefined;
}

export async function queryAll<T = Record<string, unknown>>(sql: Sql, args: readonly unknown[] = []): Promise<T[]> {
  if (getDialect() === "sqlite") return statement(sqliteSource(sql)).all(...args.map(sqliteValue)) as T[];
  return (await postgresqlQuery(getPool(), sql, args)).rows as T[];
}

/** A write on its own; returns how many rows it changed. */
export async function execute(sql: Sql, args: readonly unknown[] = []): Promise<number> {
  if (getDialect() === "sqlite")
    return runStatements("write", () => statement(sqliteSource(sql)).run(...args.map(sqliteValue)).changes);
  return (await postgresqlQuery(getPool(), sql, args)).rowCount ?? 0;
}

/**
 * A write on its own that returns its first row (`RETURNING`): on SQLite a write transaction, as `execute`; on
 * PostgreSQL one statement, committed by itself, one round trip where BEGIN and COMMIT around it would be three.
 */
export async function executeReturningOne<T = Record<string, unknown>>(
  sql: Sql,
  args: readonly unknown[] = [],
): Promise<T | undefined> {
  if (getDialect() === "sqlite")
    return runStatements("write", () => statement(sqliteSource(sql)).get(...args.map(sqliteValue)) as T | undefined);
  return (await postgresqlQuery(getPool(), sql, args)).rows[0] as T | undefined;
}

/**
 * A step that serialises the transactions taking the same lock (and `key`) until they end. SQLite's write
 * transactions are serialised already: nothing to do there. PostgreSQL takes a transaction-scoped advisory lock.
 */
export function* lockStep(lock: keyof typeof ADVISORY_LOCKS, key = ""): Generator<Step, void, unknown> {
  yield { kind: "lock", sql: `SELECT pg_advisory_xact_lock(?, hashtext(?))`, args: [ADVISORY_LOCKS[lock], key] };
}

/** The first half of PostgreSQL advisory lock keys (int4), one per kind of lock; lib/db/postgresql-migrations.ts has its own. */
const ADVISORY_LOCKS = { buildQueue: 72_405_191, loginAttempts: 72_405_192 } as const;

/** A lock's key, for SQL that takes the lock itself (the function `enqueue_build`: lib/builds/repository.ts). */
export function advisoryLockKey(lock: keyof typeof ADVISORY_LOCKS): number {
  return ADVISORY_LOCKS[lock];
}

/**
 * A row as Prisma reads it: the named columns become Dates (SQLite stores ISO text, PostgreSQL's come as Dates
 * already) and booleans (SQLite stores 0/1).
 */
export function asPrismaRow<T>(
  row: Record<string, unknown>,
  types: { dates?: readonly string[]; booleans?: readonly string[] },
): T {
  for (const column of types.dates ?? []) {
    const value = row[column];
    if (value !== null && value !== undefined) row[column] = new Date(value as string | number);
  }
  for (const column of types.booleans ?? []) {
    const value = row[column];
    if (value !== null && value !== undefined) row[column] = Boolean(value);
  }
  return row as T;
}

// SQLite

function sqliteSource(sql: Sql): string {
  return typeof sql === "string" ? sql : sql.sqlite;
}

function sqliteValue(value: unknown): unknown {
  if (value instanceof Date) return sqlDate(value);
  if (typeof value === "boolean") return value ? 1 : 0;
  return value;
}

function driveSqlite<T>(steps: Generator<Step, T, unknown>): T {
  let next = steps.next();
  while (!next.done) {
    const { kind, sql, args } = next.value;
    if (kind === "lock") {
      next = steps.next(undefined);
      continue;
    }
    const prepared = statement(sqliteSource(sql));
    const values = args.map(sqliteValue);
    next = steps.next(
      kind === "get"
        ? prepared.get(...values)
        : kind === "all"
          ? prepared.all(...values)
          : prepared.run(...values).changes,
    );
  }
  return next.value;
}

// PostgreSQL

interface PreparedText {
  name: string;
  text: string;
}

const globalForPrepared = processWide<{ postgresqlPrepared?: Map<Sql, PreparedText> }>(
  "postgresqlPrepared",
  () => ({}),
);

/** The query's PostgreSQL text (`?` numbered as `$1`, `$2`...) and the name it is prepared under. */
function postgresqlPrepared(sql: Sql): PreparedText {
  const cache = (globalForPrepared.postgresqlPrepared ??= new Map());
  let prepared = cache.get(sql);
  if (!prepared) {
    let index = 0;
    // The sources are constants of this codebase and hold no `?` inside a literal or an identifier.
    const text = (typeof sql === "string" ? sql : sql.postgresql).replace(/\?/g, () => `$${++index}`);
    prepared = { name: `hot_${crypto.createHash("sha1").update(text).digest("hex").slice(0, 16)}`, text };
    cache.set(sql, prepared);
  }
  return prepared;
}

function postgresqlValue(value: unknown): unknown {
  // As Prisma stores DateTime: timestamp(3) without time zone, in UTC (lib/db/postgresql.ts).
  if (value instanceof Date) return value.toISOString();
  return value;
}

function postgresqlQuery(client: pg.Pool | pg.PoolClient, sql: Sql, args: readonly unknown[]) {
  const { name, text } = postgresqlPrepared(sql);
  return client.query({ name, text, values: args.map(postgresqlValue) });
}

async function drivePostgresql<T>(client: pg.PoolClient, steps: Generator<Step, T, unknown>): Promise<T> {
  let next = steps.next();
  while (!next.done) {
    const { kind, sql, args } = next.value;
    const result = await postgresqlQuery(client, sql, args);
    next = steps.next(kind === "get" ? result.rows[0] : kind === "all" ? result.rows : (result.rowCount ?? 0));
  }
  return next.value;
}
