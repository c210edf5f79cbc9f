import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { inject } from "vitest";
import { createTestDatabase, dropTestDatabase, TEST_NEXTAUTH_SECRET } from "./postgresql";
import { freePort, stopProcessGroup } from "./processes";

export { freePort, stopProcessGroup };

const projectRoot = path.resolve(import.meta.dirname, "..", "..");

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
 */
export async function startAppServer(env: Record<string, string> = {}): Promise<AppServer> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "app-test-"));
  const databaseFile = path.join(dataDir, "app.db");
  const onPostgresql = inject("testDatabase") === "postgresql";
  let ownDatabase: string | undefined;
  let databaseUrl: string;
  if (onPostgresql) {
    ownDatabase = env.DATABASE_URL ? undefined : createTestDatabase();
    databaseUrl = env.DATABASE_URL ?? ownDatabase!;
  } else {
    fs.copyFileSync(inject("templateDatabase"), databaseFile);
    databaseUrl = env.DATABASE_URL ?? `file:${databaseFile}`;
  }
  // A PORT given (a test that must know it before the start, for INSTANCE_URL) is used; else a free one.
  const port = env.PORT ? Number(env.PORT) : await freePort();
  // The keep-alive timeout of `npm start` (package.json): see the README.
  const args = ["start", "-p", String(port), "--keepAliveTimeout", "65000"];
  const child = spawn(path.join(projectRoot, "node_modules", ".bin", "next"), args, {
    cwd: projectRoot,
    env: {
      ...process.env,
      NODE_ENV: "production",
      NEXT_TELEMETRY_DISABLED: "1",
      // As `npm start` (package.json): the app's own SIGTERM handler stops its jobs before the process ends.
      NEXT_MANUAL_SIG_HANDLE: "true",
      DATABASE_URL: databaseUrl,
      // SQLite: the secret generated in the data folder. PostgreSQL requires one, shared by every instance.
      NEXTAUTH_SECRET: onPostgresql ? TEST_NEXTAUTH_SECRET : undefined,
      // SQLite: the database file's folder (the default). PostgreSQL has no such folder.
      DATA_DIR: onPostgresql ? dataDir : undefined,
      NEXTAUTH_URL: undefined,
      PORT: String(port),
      // No scheduled fetches (on by default) unless a test asks: they would reach BCV_URL on their own.
      RATES_FETCH_INTERVAL_SECONDS: "0",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  const output: string[] = [];
  child.stdout?.on("data", (chunk) => output.push(String(chunk)));
  child.stderr?.on("data", (chunk) => output.push(String(chunk)));
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitUntilServing(baseUrl, child, output);
  return {
    baseUrl,
    dataDir,
    databaseFile,
    databaseUrl,
    pid: child.pid!,
    output: () => output.join(""),
    fetch: (pathname, init) => fetch(new URL(pathname, baseUrl), init),
    stop: async () => {
      await stopProcessGroup(child);
      fs.rmSync(dataDir, { recursive: true, force: true });
      if (ownDatabase) dropTestDatabase(ownDatabase);
    },
    stopProcess: (signal = "SIGTERM") => stopProcessGroup(child, signal),
  };
}

async function waitUntilServing(baseUrl: string, child: ChildProcess, output: string[]) {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      throw new Error(`The app exited with code ${child.exitCode}:\n${output.join("")}`);
    }
    try {
      await fetch(`${baseUrl}/users/me`);
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  throw new Error(`The app did not answer within 60 s:\n${output.join("")}`);
}
