import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { inject } from "vitest";
import { spawnBuiltServer, startBuiltServer, waitUntilAnswering } from "../../tools/built-server";
import {
  freePort,
  freePortBelowEphemeral,
  type SharedServerRecord,
  stopProcessGroup,
  stopSharedServers,
} from "../../tools/processes";
import type { BcvRate, BcvScenario } from "./bcv-server";
import { createTestDatabase, dropTestDatabase, TEST_NEXTAUTH_SECRET } from "./postgresql";

export { freePort, freePortBelowEphemeral, stopProcessGroup };

export interface AppServer {
  baseUrl: string;
  /** The temp folder holding this server's database and secret. */
  dataDir: string;
  /** SQLite only: the database file. */
  databaseFile: string;
  /** The DATABASE_URL the server runs on (`file:...` or `postgresql://...`): tests/support/database.ts queries it. */
  databaseUrl: string;
  /** The server's process id (`next start` serves in its own process), for memory and CPU measurements. */
  pid: number;
  /** What the server printed so far (stdout and stderr). */
  output(): string;
  fetch(pathname: string, init?: RequestInit): Promise<Response>;
  stop(): Promise<void>;
  /** Ends the server's process group (SIGTERM, or SIGKILL for a crash) and keeps its data, for a restart. */
  stopProcess(signal?: "SIGTERM" | "SIGKILL"): Promise<void>;
}

/**
 * The secret the server signs its sessions with: on SQLite the one it generated in its data folder, on
 * PostgreSQL the one every test server shares (required there).
 */
export function sessionSecret(app: AppServer): string {
  return app.databaseUrl.startsWith("file:")
    ? fs.readFileSync(path.join(app.dataDir, "nextauth-secret"), "utf8")
    : TEST_NEXTAUTH_SECRET;
}

/**
 * The environment an operator's command (scripts/, run by tsx: an import, users:admin) needs to act on a test
 * server's database, whichever it is.
 */
export function commandEnvironment(app: AppServer): Record<string, string> {
  return app.databaseUrl.startsWith("file:")
    ? { DATABASE_URL: app.databaseUrl }
    : { DATABASE_URL: app.databaseUrl, NEXTAUTH_SECRET: TEST_NEXTAUTH_SECRET, DATA_DIR: app.dataDir };
}

/**
 * Starts the built app (`next start`) on a free loopback port with a fresh copy of the migrated template
 * database (a file on SQLite, a database of the suite's cluster on PostgreSQL). Extra environment
 * (BCV_URL, BUILDS_CONFIG, ...) is passed through; a DATABASE_URL there reuses another server's database.
 * A suite that needs no environment, restart or process of its own takes sharedAppServer() instead.
 */
export async function startAppServer(env: Record<string, string> = {}): Promise<AppServer> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "app-test-"));
  const database = freshDatabase(dataDir, env.DATABASE_URL);
  // A PORT given (a test that must know it before the start, for INSTANCE_URL) is used; else a free one.
  const port = env.PORT ? Number(env.PORT) : await freePort();
  const server = await startBuiltServer({ port, env: serverEnv(dataDir, database.databaseUrl, env) });
  const baseUrl = server.baseUrl;
  return {
    baseUrl,
    dataDir,
    databaseFile: database.databaseFile,
    databaseUrl: database.databaseUrl,
    pid: server.child.pid!,
    output: server.output,
    fetch: (pathname, init) => fetch(new URL(pathname, baseUrl), init),
    stop: async () => {
      await server.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
      if (database.own) dropTestDatabase(database.databaseUrl);
    },
    stopProcess: (signal = "SIGTERM") => server.stop(signal),
  };
}

/**
 * What the shared servers run with beyond the defaults: settings no suite that shares them can notice unless it
 * asks for them. 127.0.0.3 plays a reverse proxy (only its X-Forwarded-For is believed); the other suites speak
 * from 127.0.0.1. The central bank is the worker's stand-in (sharedBank()), asked once per fetch. GET /metrics
 * answers with METRICS_TOKEN.
 */
export const SHARED_SERVER_ENV = {
  TRUSTED_PROXIES: "127.0.0.3",
  BCV_RETRIES: "0",
  METRICS_TOKEN: "metrics-token-of-the-shared-servers",
};

/** The central bank stand-in of this worker's shared server, run by the global setup and driven over HTTP. */
export interface SharedBank {
  url: string;
  setScenario(scenario: BcvScenario): Promise<void>;
  /** Publishes this rate instead of the fixture's; undefined goes back to the fixture's. */
  setRate(rate: BcvRate | undefined): Promise<void>;
}

function workerSlot(): number {
  const slot = Number(process.env.VITEST_POOL_ID ?? "1");
  if (slot > inject("sharedBankUrls").length) throw new Error(`No shared bank stand-in for worker ${slot}.`);
  return slot;
}

export function sharedBank(): SharedBank {
  const url = inject("sharedBankUrls")[workerSlot() - 1];
  const control = async (body: Record<string, string | null>) => {
    const response = await fetch(new URL("/__control", url), { method: "PUT", body: JSON.stringify(body) });
    if (!response.ok) throw new Error(`the bank stand-in's control answered ${response.status}`);
  };
  return {
    url,
    setScenario: (scenario) => control({ scenario }),
    setRate: (rate) => control({ dollar: rate?.dollar ?? null, date: rate?.date ?? null }),
  };
}

/**
 * The server this test file shares with the other files its worker runs, one a worker and database: a server
 * start costs seconds of CPU, and most suites need nothing of a server but its API. The first file of a worker
 * to ask starts it; it outlives that file (its own process group, its output in a file) and the global setup
 * stops it at the end of the run. Each file gets it with every table emptied but the migrations', the rate
 * version and the instance bookkeeping (see emptySharedData): its own data, as on a fresh server, since a
 * worker runs one file at a time. Its `stop()` gives it back; a suite that restarts, kills or measures its
 * server, or needs environment of its own, starts its own with startAppServer().
 */
export async function sharedAppServer(): Promise<AppServer> {
  const database = inject("testDatabase");
  const slot = workerSlot();
  const recordFile = path.join(inject("sharedServersDir"), `${database}-${slot}.json`);
  let record = fs.existsSync(recordFile)
    ? (JSON.parse(fs.readFileSync(recordFile, "utf8")) as SharedServerRecord)
    : null;
  const baseUrlOf = (port: number) => `http://127.0.0.1:${port}`;
  if (record && !(await isServing(baseUrlOf(record.port), record.pid))) {
    await stopSharedServers([record]);
    record = null;
  }
  if (!record) {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "app-shared-"));
    const fresh = freshDatabase(dataDir, undefined);
    const port = await freePort();
    const logFile = path.join(dataDir, "server.log");
    const log = fs.openSync(logFile, "a");
    const env = { ...SHARED_SERVER_ENV, BCV_URL: inject("sharedBankUrls")[slot - 1] };
    const server = spawnBuiltServer({ port, env: serverEnv(dataDir, fresh.databaseUrl, env), outputFd: log });
    fs.closeSync(log);
    server.child.unref();
    record = { pid: server.child.pid!, port, dataDir, ...fresh, logFile };
    fs.writeFileSync(recordFile, JSON.stringify(record));
    await waitUntilAnswering(server, () => fs.readFileSync(logFile, "utf8"));
  } else {
    emptySharedData(record.databaseUrl);
  }
  const bank = sharedBank();
  await bank.setScenario("ok");
  await bank.setRate(undefined);
  const shared = record;
  const baseUrl = baseUrlOf(shared.port);
  return {
    baseUrl,
    dataDir: shared.dataDir,
    databaseFile: shared.databaseFile,
    databaseUrl: shared.databaseUrl,
    pid: shared.pid,
    output: () => fs.readFileSync(shared.logFile, "utf8"),
    fetch: (pathname, init) => fetch(new URL(pathname, baseUrl), init),
    stop: async () => {},
    stopProcess: () => {
      throw new Error("A shared server is not stopped by a suite: start one with startAppServer().");
    },
  };
}

// Kept from one file to the next: what the schema's migrations hold (the applied list, the rate version row that
// triggers move) and what the running server wrote of itself (its Instance row, its job leases).
const KEPT_TABLES = ["_prisma_migrations", "RatesVersion", "Instance", "JobLease"];

/**
 * Empties every other table of a shared server's database, as a fresh copy of the template has them, and moves
 * the rate version, so that the server's read cache forgets the previous file's rates. Runs between files,
 * when no request is in flight.
 */
export function emptySharedData(databaseUrl: string): void {
  if (databaseUrl.startsWith("file:")) {
    const connection = new Database(databaseUrl.slice("file:".length));
    try {
      connection.pragma("busy_timeout = 10000");
      connection.pragma("foreign_keys = OFF");
      const tables = (
        connection
          .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
          .pluck()
          .all() as string[]
      ).filter((name) => !KEPT_TABLES.includes(name));
      connection.transaction(() => {
        for (const table of tables) connection.prepare(`DELETE FROM "${table}"`).run();
        if (connection.prepare("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_sequence'").get())
          connection.prepare("DELETE FROM sqlite_sequence").run();
        connection.prepare(`UPDATE "RatesVersion" SET "version" = "version" + 1 WHERE "id" = 1`).run();
      })();
    } finally {
      connection.close();
    }
    return;
  }
  // The table names come from the catalogue and are quoted; none is input.
  const script = `DO $$
DECLARE names text;
BEGIN
  SELECT string_agg(format('%I', tablename), ', ') INTO names FROM pg_tables
    WHERE schemaname = 'public' AND tablename <> ALL (ARRAY[${KEPT_TABLES.map((name) => `'${name}'`).join(", ")}]);
  IF names IS NOT NULL THEN EXECUTE 'TRUNCATE TABLE ' || names || ' RESTART IDENTITY'; END IF;
  UPDATE "RatesVersion" SET "version" = "version" + 1 WHERE "id" = 1;
END $$;`;
  execFileSync("psql", ["-X", "-q", "-v", "ON_ERROR_STOP=1", databaseUrl], {
    input: script,
    stdio: ["pipe", "ignore", "pipe"],
  });
}

function freshDatabase(
  dataDir: string,
  givenUrl: string | undefined,
): { databaseFile: string; databaseUrl: string; own: boolean } {
  const databaseFile = path.join(dataDir, "app.db");
  if (inject("testDatabase") === "postgresql") {
    return givenUrl
      ? { databaseFile, databaseUrl: givenUrl, own: false }
      : { databaseFile, databaseUrl: createTestDatabase(), own: true };
  }
  fs.copyFileSync(inject("templateDatabase"), databaseFile);
  return { databaseFile, databaseUrl: givenUrl ?? `file:${databaseFile}`, own: false };
}

/** The environment of a test server: its database, and what the tests expect of every server unless they say. */
function serverEnv(
  dataDir: string,
  databaseUrl: string,
  env: Record<string, string>,
): Record<string, string | undefined> {
  const onPostgresql = inject("testDatabase") === "postgresql";
  return {
    DATABASE_URL: databaseUrl,
    // SQLite: the secret generated in the data folder. PostgreSQL requires one, shared by every instance.
    NEXTAUTH_SECRET: onPostgresql ? TEST_NEXTAUTH_SECRET : undefined,
    // SQLite: the database file's folder (the default). PostgreSQL has no such folder.
    DATA_DIR: onPostgresql ? dataDir : undefined,
    NEXTAUTH_URL: undefined,
    // No scheduled fetches (on by default) unless a test asks: they would reach BCV_URL on their own.
    RATES_FETCH_INTERVAL_SECONDS: "0",
    // The suites register and sign in hundreds of times: at the default cost each costs 300 ms of CPU.
    PASSWORD_HASH_COST: "10",
    ...env,
  };
}

async function isServing(baseUrl: string, pid: number): Promise<boolean> {
  try {
    process.kill(pid, 0);
    await fetch(`${baseUrl}/healthz`);
    return true;
  } catch {
    return false;
  }
}
