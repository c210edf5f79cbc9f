import { type ChildProcess, spawn } from "node:child_process";
import { processWide } from "../../server/process-wide";

/**
 * Starts the builds' processes through a small helper process, started once: starting a child forks the
 * process that starts it, and the server, at a few hundred MB, blocked its one event loop 3–4 ms for every
 * stage (docs/performance.md), between the API requests it was answering. The helper, a bare Node.js of a
 * few tens of MB, forks in a fraction of that, on whichever core is free, and reports each child's pid and,
 * later, its exit. The children are detached (their own process groups) and outlive the helper, which exits
 * when the server goes away, as they outlived the server before.
 *
 * Messages to the helper: { id, file, args, cwd, env, logPath }. From it: { id, pid } once started, or
 * { id, error }; then { id, exit: { code, signal } }.
 */
export interface SpawnRequest {
  file: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  /** stdout and stderr both append to this file. */
  logPath: string;
}

export type Exit = { code: number | null; signal: NodeJS.Signals | null };

export interface Spawned {
  /** undefined when the command could not be started (`error` says why). */
  pid: number | undefined;
  error?: string;
  exited: Promise<Exit>;
}

interface Pending {
  started: (pid: number | undefined, error?: string) => void;
  exited: (exit: Exit) => void;
  pid?: number;
}

type HelperMessage = { id: number; pid?: number; error?: string; exit?: Exit };

interface Spawner {
  helper: ChildProcess;
  pending: Map<number, Pending>;
  nextId: number;
}

// On globalThis: the executor and the drivers may live in different bundles of the server, and one helper serves all.
const globalForSpawner = processWide<{ buildsSpawner?: Spawner }>("buildsSpawner", () => ({}));

// The helper's program, run with `node -e`: a file of its own would be bundled away by Next.js.
const HELPER_SOURCE = `
const { spawn } = require("node:child_process");
const fs = require("node:fs");

process.on("message", ({ id, file, args, cwd, env, logPath }) => {
  let settled = false;
  const fail = (error) => {
    if (settled) return;
    settled = true;
    process.send({ id, error: error.message });
  };
  let fd;
  try {
    fd = fs.openSync(logPath, "a");
    const child = spawn(file, args, { cwd, env, stdio: ["ignore", fd, fd], detached: true });
    child.once("error", fail);
    child.once("spawn", () => {
      settled = true;
      process.send({ id, pid: child.pid });
    });
    child.once("exit", (code, signal) => {
      if (settled) process.send({ id, exit: { code, signal } });
    });
    child.unref();
  } catch (error) {
    fail(error);
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
});

process.on("disconnect", () => process.exit(0));
`;

function spawner(): Spawner {
  const current = globalForSpawner.buildsSpawner;
  if (current?.helper.connected) return current;
  const helper = spawn(process.execPath, ["-e", HELPER_SOURCE], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    serialization: "json",
  });
  const created: Spawner = { helper, pending: new Map(), nextId: 1 };
  helper.on("message", (message: HelperMessage) => {
    const pending = created.pending.get(message.id);
    if (!pending) return;
    if (message.exit) {
      created.pending.delete(message.id);
      pending.exited(message.exit);
    } else if (message.pid !== undefined) {
      pending.pid = message.pid;
      pending.started(message.pid);
    } else {
      created.pending.delete(message.id);
      pending.started(undefined, message.error ?? "unknown error");
      pending.exited({ code: 127, signal: null });
    }
  });
  // Should the helper die, its children live on in their groups, but their exit statuses are lost: report
  // them as ended without one, and the callers stop whatever is left of the groups.
  helper.on("exit", () => {
    for (const pending of created.pending.values()) {
      if (pending.pid === undefined) pending.started(undefined, "the process starter exited");
      pending.exited({ code: null, signal: null });
    }
    created.pending.clear();
    if (globalForSpawner.buildsSpawner === created) globalForSpawner.buildsSpawner = undefined;
  });
  // Neither the helper nor its channel keeps the server (or a test process) from exiting.
  helper.unref();
  helper.channel?.unref();
  globalForSpawner.buildsSpawner = created;
  return created;
}

/** Starts `file` with `args` detached (its own process group), its output appended to `logPath`. */
export function spawnDetached(request: SpawnRequest): Promise<Spawned> {
  const current = spawner();
  const id = current.nextId++;
  let reportExit!: (exit: Exit) => void;
  const exited = new Promise<Exit>((resolve) => (reportExit = resolve));
  return new Promise<Spawned>((resolve) => {
    const pending: Pending = { started: (pid, error) => resolve({ pid, error, exited }), exited: reportExit };
    current.pending.set(id, pending);
    current.helper.send({ id, ...request }, (error) => {
      if (!error || !current.pending.delete(id)) return;
      pending.started(undefined, `the process starter is gone: ${error.message}`);
      pending.exited({ code: 127, signal: null });
    });
  });
}
