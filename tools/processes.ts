import type { ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";

// Process and port helpers shared by the tests (the vitest suites and the Playwright setup, which must not load
// vitest), the bench and the scripts.

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
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

/** Ends a shared server's process group (SIGKILL after 10 s) and removes its data folder. */
export function stopSharedServer(record: SharedServerRecord): void {
  const alive = () => {
    try {
      process.kill(-record.pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  if (alive()) {
    process.kill(-record.pid, "SIGTERM");
    const deadline = Date.now() + 10_000;
    while (alive() && Date.now() < deadline) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
    if (alive()) process.kill(-record.pid, "SIGKILL");
  }
  fs.rmSync(record.dataDir, { recursive: true, force: true });
}
