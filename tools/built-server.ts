import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { stopProcessGroup } from "./processes";

const projectRoot = path.resolve(import.meta.dirname, "..");

export interface BuiltServerOptions {
  port: number;
  /** Added to this process's environment; an undefined value removes the variable. */
  env?: Record<string, string | undefined>;
  /** The built app's folder: the project's by default (the bench's bare baseline is another). */
  dir?: string;
  /** The address it listens on; every address by default, as `npm start`. */
  host?: string;
  /** Node's own flags, before Next's (`--cpu-prof`, `--import ...`). */
  nodeArgs?: string[];
  /** A file descriptor for its output, for a server that outlives the process that starts it; else collected. */
  outputFd?: number;
  /** Called with each chunk of its collected output. */
  onOutput?: (chunk: string) => void;
}

export interface BuiltServer {
  child: ChildProcess;
  port: number;
  baseUrl: string;
  /** What it printed so far (empty when its output goes to a file descriptor). */
  output(): string;
  /** SIGTERM (or `signal`) to its process group, SIGKILL after 10 s. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * `next start` of a built app, the one way the tests, the end-to-end setup and the bench start one: as `npm
 * start` runs it (production mode, the app's own SIGTERM handler, idle connections kept 65 s), in its own
 * process group so that stopping it stops everything it started. Returns at once; `waitUntilAnswering` waits.
 */
export function spawnBuiltServer(options: BuiltServerOptions): BuiltServer {
  const next = path.join(projectRoot, "node_modules", "next", "dist", "bin", "next");
  const args = [...(options.nodeArgs ?? []), next, "start"];
  if (options.dir) args.push(options.dir);
  args.push("-p", String(options.port), "--keepAliveTimeout", "65000");
  if (options.host) args.push("-H", options.host);
  const stdio = options.outputFd ?? "pipe";
  const child = spawn(process.execPath, args, {
    cwd: projectRoot,
    env: {
      ...process.env,
      NODE_ENV: "production",
      NEXT_TELEMETRY_DISABLED: "1",
      NEXT_MANUAL_SIG_HANDLE: "true",
      PORT: String(options.port),
      ...options.env,
    },
    stdio: ["ignore", stdio, stdio],
    detached: true,
  });
  const output: string[] = [];
  const collect = (chunk: Buffer) => {
    output.push(String(chunk));
    options.onOutput?.(String(chunk));
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  return {
    child,
    port: options.port,
    baseUrl: `http://${options.host ?? "127.0.0.1"}:${options.port}`,
    output: () => output.join(""),
    stop: (signal) => stopProcessGroup(child, signal),
  };
}

/** Waits until `probe` answers (any status); throws with its output when it exits or does not answer in time. */
export async function waitUntilAnswering(
  server: Pick<BuiltServer, "child" | "baseUrl">,
  output: () => string,
  probe = "/users/me",
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (server.child.exitCode !== null) {
      throw new Error(`The server exited with code ${server.child.exitCode}:\n${output()}`);
    }
    try {
      await (await fetch(server.baseUrl + probe)).arrayBuffer();
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  throw new Error(`${server.baseUrl} did not answer within ${timeoutMs / 1000} s:\n${output()}`);
}

/** spawnBuiltServer, then waitUntilAnswering. */
export async function startBuiltServer(
  options: BuiltServerOptions & { probe?: string; timeoutMs?: number },
): Promise<BuiltServer> {
  const server = spawnBuiltServer(options);
  try {
    await waitUntilAnswering(server, server.output, options.probe, options.timeoutMs);
  } catch (error) {
    await server.stop();
    throw error;
  }
  return server;
}
