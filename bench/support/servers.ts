import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { type BuiltServer, spawnBuiltServer, waitUntilAnswering } from "../../tools/built-server";
import { freePort, stopProcessGroup } from "../../tools/processes";

/**
 * Processes the benchmark starts on loopback: the built app, and its baselines, a bare Next.js app
 * (bench/baselines/next) and a bare node:http server. Each one its own process group.
 */
export const projectRoot = path.resolve(import.meta.dirname, "..", "..");

export interface Server {
  baseUrl: string;
  port: number;
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
  /** Where its garbage collections are counted (bench/support/gc-counter.mjs), when they are. */
  gcUrl?: string;
}

const BARE_NEXT = path.join(projectRoot, "bench", "baselines", "next");

/** Builds the bare Next.js baseline when it has no build yet or its sources changed since (a few seconds). */
export function buildBareNext(): void {
  const built = path.join(BARE_NEXT, ".next", "BUILD_ID");
  const sources = fs
    .readdirSync(BARE_NEXT, { recursive: true, encoding: "utf8" })
    .filter((file) => !file.startsWith(".next"));
  const newest = Math.max(...sources.map((file) => fs.statSync(path.join(BARE_NEXT, file)).mtimeMs));
  if (fs.existsSync(built) && fs.statSync(built).mtimeMs > newest) return;
  execFileSync(path.join(projectRoot, "node_modules", ".bin", "next"), ["build", BARE_NEXT], {
    cwd: projectRoot,
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
    stdio: ["ignore", "ignore", "inherit"],
  });
}

/** Node's options that load the garbage collection counter, and where it answers. */
async function gcCounter(): Promise<{ nodeArgs: string[]; env: Record<string, string>; url: string }> {
  const port = await freePort();
  return {
    nodeArgs: ["--import", path.join(projectRoot, "bench", "support", "gc-counter.mjs")],
    env: { BENCH_GC_PORT: String(port) },
    url: `http://127.0.0.1:${port}/`,
  };
}

/**
 * The framework's floor: `next start` of the bare baseline (built by buildBareNext), its collections counted;
 * `nodeArgs` e.g. `--cpu-prof` for a profile.
 */
export async function startBareNext(options: { nodeArgs?: string[] } = {}): Promise<Server> {
  const gc = await gcCounter();
  const server = spawnBuiltServer({
    port: await freePort(),
    host: "127.0.0.1",
    dir: BARE_NEXT,
    nodeArgs: [...gc.nodeArgs, ...(options.nodeArgs ?? [])],
    // Next's own handler of SIGTERM ends the process through process.exit, which lets V8 write a profile; the
    // baseline has no handler of its own, as the app does (NEXT_MANUAL_SIG_HANDLE, jobs.ts).
    env: { ...gc.env, NEXT_MANUAL_SIG_HANDLE: undefined },
  });
  runningServers.add(server.child);
  server.child.once("exit", () => runningServers.delete(server.child));
  await waitUntilAnswering(server, server.output, "/floor", 90_000);
  return { ...serverOf(server), gcUrl: gc.url };
}

/** Applies the migrations `npm start` applies to the database `env` names. */
export function migrateDatabase(env: Record<string, string>): void {
  execFileSync(path.join(projectRoot, "node_modules", ".bin", "tsx"), ["scripts/prepare-start.ts"], {
    cwd: projectRoot,
    env: { ...process.env, ...env },
    stdio: ["ignore", "ignore", "inherit"],
  });
}

/** A fresh, migrated database file in a temp folder. */
export function makeDatabase(): { dataDir: string; databaseFile: string } {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-app-"));
  const databaseFile = path.join(dataDir, "app.db");
  migrateDatabase({ DATABASE_URL: `file:${databaseFile}` });
  return { dataDir, databaseFile };
}

export function assertBuilt(): void {
  if (!fs.existsSync(path.join(projectRoot, ".next", "BUILD_ID"))) {
    throw new Error("The app is not built: run `npm run build` first; the benchmark builds nothing by itself.");
  }
}

/**
 * `next start` of the built app (tools/built-server.ts); `nodeArgs` e.g. `--cpu-prof` for a profile. With
 * `countGcs`, its garbage collections are counted (bench/support/gc-counter.mjs).
 */
export async function startApp(options: {
  databaseUrl: string;
  env?: Record<string, string>;
  nodeArgs?: string[];
  countGcs?: boolean;
  /** Another build of the app to start (bench/compare-builds.ts): a folder with its `.next`. */
  dir?: string;
}): Promise<Server> {
  const gc = options.countGcs ? await gcCounter() : undefined;
  const server = spawnBuiltServer({
    dir: options.dir,
    port: await freePort(),
    host: "127.0.0.1",
    nodeArgs: [...(gc?.nodeArgs ?? []), ...(options.nodeArgs ?? [])],
    env: {
      DATABASE_URL: options.databaseUrl,
      NEXTAUTH_URL: undefined,
      NEXTAUTH_SECRET: undefined,
      ...gc?.env,
      ...options.env,
    },
  });
  runningServers.add(server.child);
  server.child.once("exit", () => runningServers.delete(server.child));
  await waitUntilAnswering(server, server.output, "/users/me", 90_000);
  return { ...serverOf(server), gcUrl: gc?.url };
}

function serverOf(server: BuiltServer): Server {
  return {
    baseUrl: server.baseUrl,
    port: server.port,
    child: server.child,
    output: server.output,
    stop: () => server.stop(),
  };
}

/** The machine's limit for an HTTP server in Node: node:http answering constant JSON. */
export async function startNodeHttp(body: string): Promise<Server> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [path.join(projectRoot, "bench", "servers", "node-http.mjs"), String(port), body],
    {
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    },
  );
  return watch(child, port, "/");
}

/** Every server started and not yet exited, ready or not: what an interrupted benchmark must stop. */
const runningServers = new Set<ChildProcess>();

export async function stopEveryServer(): Promise<void> {
  await Promise.all([...runningServers].map((child) => stopProcessGroup(child)));
}

async function watch(child: ChildProcess, port: number, probe: string): Promise<Server> {
  runningServers.add(child);
  child.once("exit", () => runningServers.delete(child));
  const output: string[] = [];
  child.stdout?.on("data", (chunk) => output.push(String(chunk)));
  child.stderr?.on("data", (chunk) => output.push(String(chunk)));
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`exited with code ${child.exitCode}:\n${output.join("")}`);
    try {
      await (await fetch(baseUrl + probe)).arrayBuffer();
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`no answer on ${baseUrl} within 90 s:\n${output.join("")}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  return { baseUrl, port, child, output: () => output.join(""), stop: () => stopProcessGroup(child) };
}
