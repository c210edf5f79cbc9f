import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { inject } from "vitest";

const projectRoot = path.resolve(import.meta.dirname, "..", "..");

export interface AppServer {
  baseUrl: string;
  /** The temp folder holding this server's database and secret. */
  dataDir: string;
  databaseFile: string;
  fetch(pathname: string, init?: RequestInit): Promise<Response>;
  stop(): Promise<void>;
  /** Ends the server's process group (SIGTERM, or SIGKILL for a crash) and keeps its data, for a restart. */
  stopProcess(signal?: "SIGTERM" | "SIGKILL"): Promise<void>;
}

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

/**
 * Starts the built app (`next start`) on a free loopback port with a fresh copy of the migrated template
 * database. Extra environment (BCV_URL, BUILDS_CONFIG, ...) is passed through.
 */
export async function startAppServer(env: Record<string, string> = {}): Promise<AppServer> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "app-test-"));
  const databaseFile = path.join(dataDir, "app.db");
  fs.copyFileSync(inject("templateDatabase"), databaseFile);
  const port = await freePort();
  const child = spawn(path.join(projectRoot, "node_modules", ".bin", "next"), ["start", "-p", String(port)], {
    cwd: projectRoot,
    env: {
      ...process.env,
      NODE_ENV: "production",
      NEXT_TELEMETRY_DISABLED: "1",
      DATABASE_URL: `file:${databaseFile}`,
      NEXTAUTH_SECRET: undefined,
      NEXTAUTH_URL: undefined,
      PORT: String(port),
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
    fetch: (pathname, init) => fetch(new URL(pathname, baseUrl), init),
    stop: async () => {
      await stopProcessGroup(child);
      fs.rmSync(dataDir, { recursive: true, force: true });
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
