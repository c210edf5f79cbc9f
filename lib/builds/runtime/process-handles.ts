import fs from "node:fs";
import { isProcessGroupAlive, stopProcessGroup } from "./processes";

/**
 * Handles of local process groups (a stage's shell, git, the docker CLI), as the opaque text the executor
 * stores. A process id alone is not an identity: after a restart the recorded id may belong to another
 * process. A handle therefore carries the group leader's start time (field 22 of /proc/<pid>/stat, in clock
 * ticks since boot), and every build process carries its build's id in its environment (BUILD_ID), which its
 * children inherit. A group is the build's only if its leader still has the recorded start time, or, once
 * the leader is gone (or for handles recorded before start times were, which have none), if a process of
 * the group carries the build's BUILD_ID. Nothing is signalled otherwise.
 */
interface ProcessHandle {
  pgid: number;
  /** The leader's start time; absent in handles migrated from bare process group ids. */
  start?: string;
}

/** Field 22 of /proc/<pid>/stat: when the process started, in clock ticks since boot. Null if it is gone. */
export function processStartTime(pid: number): string | null {
  const fields = statFields(pid);
  // statFields starts at field 3 (state): field 22 is at index 19.
  return fields?.[19] ?? null;
}

/** The fields of /proc/<pid>/stat after the parenthesised command (state, ppid, pgrp, ...). */
function statFields(pid: number): string[] | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return null;
  }
}

/** The handle of a process group just spawned; its leader's start time is read now, while it surely lives. */
export function encodeProcessHandle(pgid: number): string {
  const start = processStartTime(pgid);
  return JSON.stringify(start === null ? { pgid } : { pgid, start });
}

export function parseProcessHandle(text: string | null | undefined): ProcessHandle | null {
  if (!text) return null;
  try {
    const value = JSON.parse(text) as { pgid?: unknown; start?: unknown };
    if (!Number.isInteger(value.pgid) || (value.pgid as number) <= 1) return null;
    return { pgid: value.pgid as number, start: typeof value.start === "string" ? value.start : undefined };
  } catch {
    return null;
  }
}

function carriesBuildId(pid: number, buildId: string): boolean {
  try {
    return fs.readFileSync(`/proc/${pid}/environ`, "latin1").split("\0").includes(`BUILD_ID=${buildId}`);
  } catch {
    return false;
  }
}

/** The live (non-zombie) processes of a group. */
function groupMembers(pgid: number): number[] {
  const members: number[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = statFields(Number(entry));
    if (fields && Number(fields[2]) === pgid && fields[0] !== "Z") members.push(Number(entry));
  }
  return members;
}

/** Whether the group a handle names is alive and still the build's (see above). */
export function isBuildProcessGroupAlive(handleText: string | null | undefined, buildId: string): boolean {
  const handle = parseProcessHandle(handleText);
  if (!handle || !isProcessGroupAlive(handle.pgid)) return false;
  // Without /proc there is nothing to check identity with; the group id is all there is.
  if (process.platform !== "linux") return true;
  const members = groupMembers(handle.pgid);
  if (members.includes(handle.pgid)) {
    return handle.start !== undefined
      ? processStartTime(handle.pgid) === handle.start
      : carriesBuildId(handle.pgid, buildId);
  }
  // The leader is gone. Its id cannot be given to a new process while its group has members, but a stranger
  // that took the id earlier could have made a group of its own: trust only members that name the build.
  return members.some((pid) => carriesBuildId(pid, buildId));
}

/** Stops the group a handle names (SIGTERM, then SIGKILL) if it is still the build's; otherwise leaves it. */
export async function stopBuildProcessGroup(
  handleText: string | null | undefined,
  buildId: string,
  graceMs?: number,
): Promise<void> {
  const handle = parseProcessHandle(handleText);
  if (!handle || !isBuildProcessGroupAlive(handleText, buildId)) return;
  await stopProcessGroup(handle.pgid, graceMs);
}
