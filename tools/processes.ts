import type { ChildProcess } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import net from "node:net";

// Process and port helpers shared by the tests (the vitest suites and the Playwright setup, which must not load
// vitest), the bench and the scripts.

export function freePort(): Promise<number> {
  return listenAndClose(0);
}

/**
 * A free port of 127.0.0.1 below Linux's ephemeral ports (32768-60999), for a server that binds it long after it is
 * chosen: a gateway whose port goes into the builds configuration before the app and the builds start. A port from
 * freePort() is an ephemeral one, which the kernel may give to a test running beside in the meantime, whose server
 * then answers in its place; the kernel never gives out ports below that range.
 */
export async function freePortBelowEphemeral(): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = 10_000 + crypto.randomInt(22_000);
    try {
      return await listenAndClose(port);
    } catch {
      // Taken: try another.
    }
  }
  throw new Error("no free port between 10000 and 31999 after 100 tries");
}

/** Listens on `port` of 127.0.0.1 (0: one the kernel picks) and closes again; the port it listened on. */
function listenAndClose(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      const { port: bound } = server.address() as net.AddressInfo;
      server.close(() => resolve(bound));
    });
  });
}

/** SIGTERM (or `signal`) to the server's process group, SIGKILL if it is still there after 10 s. */
export async function stopProcessGroup(child: ChildProcess, signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  try {
    process.kill(-child.pid, signal);
  } catch {
    return;
  }
  const timer = setTimeout(() => {
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {
      /* already gone */
    }
  }, 10_000);
  await exited;
  clearTimeout(timer);
}

/** What tests/support/app-server.ts's sharedAppServer() keeps of a shared server, in the run's folder of them. */
export interface SharedServerRecord {
  pid: number;
  port: number;
  dataDir: string;
  databaseFile: string;
  databaseUrl: string;
  logFile: string;
}

/**
 * Ends shared servers' process groups (SIGKILL after 10 s) and removes their data folders. They are signalled
 * together and awaited together: each stops its background jobs before it exits, and the run waits for the
 * slowest of them, not for the sum. Waits without blocking, so the caller's process keeps answering its workers.
 */
export async function stopSharedServers(records: SharedServerRecord[]): Promise<void> {
  const alive = (record: SharedServerRecord) => {
    try {
      process.kill(-record.pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  const signal = (record: SharedServerRecord, name: NodeJS.Signals) => {
    try {
      process.kill(-record.pid, name);
    } catch {
      /* already gone */
    }
  };
  for (const record of records) signal(record, "SIGTERM");
  const deadline = Date.now() + 10_000;
  while (records.some(alive) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  for (const record of records.filter(alive)) signal(record, "SIGKILL");
  for (const record of records) fs.rmSync(record.dataDir, { recursive: true, force: true });
}
