import fs from "node:fs";
import { buildProcessBaseEnv } from "../../server/env";
import { getBuildsConfig } from "../config";
import { logWriterCommand } from "../logs/log-writer";
import { type RunOutcome, RuntimeUnavailableError } from "./driver";
import { spawnDetached } from "./spawner";

/**
 * Child processes of the builds. Every one runs in its own process group (detached), so that stopping a
 * stage reaches whatever its shell started, and so that the server's own process group can stop without
 * taking running previews down with it.
 */
export interface LoggedProcess {
  /** The process id, which is also its process group id. */
  pgid: number;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface SpawnLoggedOptions {
  file: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  /** stdout and stderr both append to this file, interleaved as they come, up to stage_log_limit_mb. */
  logPath: string;
  /** Another user to run the command as (the build's own uid, ./run-as.ts); the log writer stays the server's. */
  user?: { uid: number; gid: number } | null;
  /** `exit`: done when the command exits (stages); `eof` (default): while anything holds its output (runtimes). */
  mode?: "exit" | "eof";
}

/**
 * Starts a command in a new process group under the capping log writer (./log-writer.ts), which is the
 * group's leader: the returned pgid is the writer's pid, and its exit status is the command's. The writer is
 * started by the builds' process starter (./spawner.ts), not forked from the server.
 */
export async function spawnLogged({
  file,
  args,
  cwd,
  env,
  logPath,
  user,
  mode = "eof",
}: SpawnLoggedOptions): Promise<LoggedProcess> {
  const limitBytes = getBuildsConfig().stage_log_limit_mb * 1024 * 1024;
  fs.appendFileSync(logPath, "");
  // A stage of several commands (a checkout of several repositories) shares one limit.
  const writer = logWriterCommand({ limitBytes, loggedBytes: fs.statSync(logPath).size, mode, user, file, args });
  const started = await spawnDetached({ file: writer.file, args: writer.args, cwd, env, logPath });
  if (started.pid === undefined) {
    fs.appendFileSync(logPath, `\n[builds] could not start ${file}: ${started.error}\n`);
    return { pgid: -1, exited: started.exited };
  }
  return { pgid: started.pid, exited: started.exited };
}

/**
 * Whether any live (non-zombie) process remains in a process group. `kill(-pgid, 0)` alone is not enough:
 * orphaned zombies keep a group "existing" where PID 1 does not reap them, as in some containers.
 */
export function isProcessGroupAlive(pgid: number): boolean {
  if (!Number.isInteger(pgid) || pgid <= 1) return false;
  try {
    process.kill(-pgid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
  if (process.platform !== "linux") return true;
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue;
    }
    // Fields after the parenthesised command: state, ppid, pgrp, ...
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(fields[2]) === pgid && fields[0] !== "Z") return true;
  }
  return false;
}

/** SIGTERM to a process group, SIGKILL once `graceMs` has passed; resolves when no process of it is left. */
export async function stopProcessGroup(pgid: number, graceMs = 10_000): Promise<void> {
  if (!isProcessGroupAlive(pgid)) return;
  signalGroup(pgid, "SIGTERM");
  const killAt = Date.now() + graceMs;
  let killed = false;
  while (isProcessGroupAlive(pgid)) {
    if (!killed && Date.now() >= killAt) {
      signalGroup(pgid, "SIGKILL");
      killed = true;
    }
    await sleep(50);
  }
}

function signalGroup(pgid: number, signal: NodeJS.Signals) {
  try {
    process.kill(-pgid, signal);
  } catch {
    /* the group is already gone */
  }
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
    // Already aborted: its event has fired, and will not again.
    if (signal?.aborted) done();
  });
}

/**
 * Runs a logged process to its end. Aborting the signal or passing `timeoutMs` stops its whole process
 * group (SIGTERM, SIGKILL after 10 s) and resolves only once the group is gone.
 */
export async function runToCompletion(
  options: SpawnLoggedOptions,
  control: { signal: AbortSignal; timeoutMs: number; onStarted?: (pgid: number) => Promise<unknown> },
): Promise<RunOutcome> {
  if (control.signal.aborted) return { kind: "aborted" };
  const child = await spawnLogged({ mode: "exit", ...options });
  await control.onStarted?.(child.pgid);
  let stoppedFor: "aborted" | "timed_out" | null = null;
  const stop = (reason: "aborted" | "timed_out") => {
    stoppedFor ??= reason;
    void stopProcessGroup(child.pgid);
  };
  const onAbort = () => stop("aborted");
  control.signal.addEventListener("abort", onAbort, { once: true });
  // An abort while the process was starting or being recorded fired before this listener existed (a cancel as
  // soon as the stage shows as started): without this, the stage ran to its own end, a minute for a slow one.
  if (control.signal.aborted) onAbort();
  const timer = setTimeout(() => stop("timed_out"), control.timeoutMs);
  try {
    const exit = await child.exited;
    // The shell may be gone while what it started lives on in the group: the stage is over only when all are.
    if (stoppedFor) await stopProcessGroup(child.pgid);
    else if (isProcessGroupAlive(child.pgid)) await stopProcessGroup(child.pgid);
    if (stoppedFor) return { kind: stoppedFor };
    return { kind: "exited", ...exit };
  } finally {
    clearTimeout(timer);
    control.signal.removeEventListener("abort", onAbort);
  }
}

/**
 * The live processes of each uid in [start, end] (their real, effective, saved or file-system uid), from
 * /proc. A zombie counts only while other threads of it still run (a leader that exited before its threads).
 */
export function processesOfUsers(start: number, end: number): Map<number, number[]> {
  const found = new Map<number, number[]>();
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let status: string;
    try {
      status = fs.readFileSync(`/proc/${entry}/status`, "utf8");
    } catch {
      continue;
    }
    const uids = /^Uid:\s+(.*)$/m.exec(status)?.[1].trim().split(/\s+/).map(Number) ?? [];
    const uid = uids.find((candidate) => candidate >= start && candidate <= end);
    if (uid === undefined) continue;
    if (/^State:\s+Z/m.test(status) && Number(/^Threads:\s+(\d+)/m.exec(status)?.[1] ?? 1) <= 1) continue;
    found.set(uid, [...(found.get(uid) ?? []), Number(entry)]);
  }
  return found;
}

/** The uids in [start, end] that have a live process. */
export function usersWithProcesses(start: number, end: number): Set<number> {
  return new Set(processesOfUsers(start, end).keys());
}

/**
 * Ends every process of a uid, however it detached from its stage (setsid, double forks, `env -i`): `kill -KILL
 * -1` run as that uid, which the kernel delivers to every process the uid may signal, and which a fork cannot
 * outrun (a process about to fork with SIGKILL pending makes no child). Repeated until /proc shows none left,
 * since a process may have been starting meanwhile. SIGKILL at once: the build is being destroyed, and its
 * stages' process groups had their SIGTERM and grace period before. Throws RuntimeUnavailableError if some
 * are still there after `timeoutMs` (a process stuck in the kernel): the destroy is then tried again later.
 */
export async function endProcessesOfUser(uid: number, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let round = 0; ; round++) {
    const left = processesOfUsers(uid, uid).get(uid) ?? [];
    if (left.length === 0) return;
    if (Date.now() >= deadline) {
      throw new RuntimeUnavailableError(
        `${left.length} processes of uid ${uid} (pids ${left.slice(0, 5).join(", ")}) did not end.`,
      );
    }
    const kill = await spawnDetached({
      file: "setpriv",
      args: ["--reuid", String(uid), "--regid", String(uid), "--clear-groups", "--", "kill", "-KILL", "-1"],
      cwd: "/",
      env: { PATH: buildProcessBaseEnv().PATH },
      logPath: "/dev/null",
    });
    await kill.exited;
    if (round > 0) await sleep(Math.min(200, 20 * round));
  }
}
