import fs from "node:fs";
import path from "node:path";
import { buildProcessBaseEnv } from "../../server/env";
import { processWide } from "../../server/process-wide";
import type { BuildsConfig } from "../config";
import { endProcessesOfUser, usersWithProcesses } from "./processes";
import { spawnDetached } from "./spawner";

/**
 * Who the `process` driver's stages and runtimes run as. A server running as root runs each build as a uid
 * of its own, leased from runtime.run_as_uids for as long as the build has processes or files (from its
 * install stage until its workspace is removed), with a group of the same number and no other groups. So:
 * - a build cannot read the data folder (0700 root), signal the server, nor touch another build's processes
 *   or files (its sources and runtime folders are 0700, its own);
 * - "every process of the build" is exact: every process of its uid, however it detached (setsid, double
 *   forks, `env -i`), which is how cancel, DELETE, expiry and recovery end them (processes.ts);
 * - its files can be removed with its own identity, which cannot delete anything it could not anyway.
 * The uids need no entry in /etc/passwd; the range must be used by nothing else on the machine, since its
 * processes are ended by uid. A server that is not root cannot switch users: stages then run as its own user
 * and can read what it can, which is why docs/builds.md calls `process` a driver for trusted repositories only.
 *
 * Leases are files, <builds_root>/.build-users/<build_id> holding the uid, in a folder only root can enter:
 * they survive restarts (a running preview keeps its uid), and no build, not even a container of the compose
 * driver writing into a mount, can claim or forge one.
 */
export interface StageUser {
  uid: number;
  gid: number;
}

export class StageUserError extends Error {}

function serverIsRoot(): boolean {
  return typeof process.getuid === "function" && process.getuid() === 0;
}

/** Whether builds of this configuration run as uids of their own: the process driver, the server root. */
export function buildsRunAsOwnUsers(config: BuildsConfig): boolean {
  return config.runtime.driver === "process" && serverIsRoot();
}

const BUILD_ID = /^[0-9a-f]{16}$/;

// Where the next lease starts looking: after the last uid leased; at first, anywhere, so that two instances
// given one range by mistake do not both begin with its first uid.
const globalForLeases = processWide<{ buildUserCursor?: { next: number } }>("buildUserCursor", () => ({}));

function leasesFolder(config: BuildsConfig): string {
  return path.join(config.builds_root, ".build-users");
}

/** Every uid leased now, by build id. */
export function leasedBuildUsers(config: BuildsConfig): Map<string, number> {
  const folder = leasesFolder(config);
  const leases = new Map<string, number>();
  let names: string[];
  try {
    names = fs.readdirSync(folder);
  } catch {
    return leases;
  }
  for (const name of names) {
    if (!BUILD_ID.test(name)) continue;
    const uid = Number(fs.readFileSync(path.join(folder, name), "utf8").trim());
    if (Number.isInteger(uid) && uid > 0) leases.set(name, uid);
  }
  return leases;
}

/** The uid a build holds, or null (it has none: not started yet, another driver, or already released). */
export function buildUser(config: BuildsConfig, buildId: string): StageUser | null {
  if (!BUILD_ID.test(buildId)) return null;
  let text: string;
  try {
    text = fs.readFileSync(path.join(leasesFolder(config), buildId), "utf8");
  } catch {
    return null;
  }
  const uid = Number(text.trim());
  return Number.isInteger(uid) && uid > 0 ? { uid, gid: uid } : null;
}

/**
 * Leases a uid of runtime.run_as_uids to a build (the one it holds, if any): the next one after the last
 * leased, so that a uid is reused as late as possible, and never one with a process left. Null when all
 * are taken. Synchronous from the read of the leases to the write of the new one: two builds cannot get
 * the same uid.
 */
export function leaseBuildUser(config: BuildsConfig, buildId: string, busy: ReadonlySet<number>): StageUser | null {
  const held = buildUser(config, buildId);
  if (held) return held;
  const { start, end } = config.runtime.run_as_uids;
  const taken = new Set(leasedBuildUsers(config).values());
  const size = end - start + 1;
  const state = (globalForLeases.buildUserCursor ??= { next: start + Math.floor(Math.random() * size) });
  for (let step = 0; step < size; step++) {
    const uid = start + ((((state.next - start + step) % size) + size) % size);
    if (taken.has(uid) || busy.has(uid)) continue;
    fs.mkdirSync(leasesFolder(config), { recursive: true, mode: 0o700 });
    fs.writeFileSync(path.join(leasesFolder(config), buildId), `${uid}\n`, { mode: 0o600 });
    state.next = uid + 1;
    return { uid, gid: uid };
  }
  return null;
}

/** Ends a build's lease; call it only once no process of the uid is left and its files are removed. */
export function releaseBuildUser(config: BuildsConfig, buildId: string): void {
  if (!BUILD_ID.test(buildId)) return;
  fs.rmSync(path.join(leasesFolder(config), buildId), { force: true });
}

/** Whether someone who is neither the owner of `folder` nor in its group may enter it. */
function othersMayEnter(folder: string): boolean {
  return (fs.statSync(folder).mode & 0o001) !== 0;
}

/** The users of /etc/passwd whose uid lies in the range (processes of the range are ended by uid). */
function usersInRange(range: { start: number; end: number }): string[] {
  let passwd: string;
  try {
    passwd = fs.readFileSync("/etc/passwd", "utf8");
  } catch {
    return [];
  }
  return passwd
    .split("\n")
    .map((line) => line.split(":"))
    .filter((fields) => fields.length > 2 && Number(fields[2]) >= range.start && Number(fields[2]) <= range.end)
    .map((fields) => `${fields[0]} (${fields[2]})`);
}

/**
 * Checked at start: builds_root is outside the data folder (which builds must not enter) and no user of
 * /etc/passwd has a uid of the range, or StageUserError names what to change. A folder above builds_root
 * that does not let others through is answered with a warning only: builds would fail at their first stage,
 * saying permission denied, but the rest of the service works, and a checkout in a private folder (a CI
 * clone under `mktemp -d`) with builds configured elsewhere must still start.
 */
export function checkStageUser(config: BuildsConfig, dataDir: string): string[] {
  if (!buildsRunAsOwnUsers(config)) return [];
  const label = path.basename(config.file);
  const range = config.runtime.run_as_uids;
  const relative = path.relative(path.resolve(dataDir), config.builds_root);
  if (relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative))) {
    throw new StageUserError(
      `${label}: builds_root: ${config.builds_root} is inside the data folder ${dataDir}, which builds running as ` +
        `runtime.run_as_uids must not enter; put the builds elsewhere, e.g. builds_root: ./builds.`,
    );
  }
  const users = usersInRange(range);
  if (users.length > 0) {
    throw new StageUserError(
      `${label}: runtime.run_as_uids: ${range.start}-${range.end} holds the uid of ${users.slice(0, 3).join(", ")}; ` +
        `every process of a build's uid is ended with the build, so choose a range that no user has.`,
    );
  }
  fs.mkdirSync(config.builds_root, { recursive: true });
  for (let folder = config.builds_root; ; folder = path.dirname(folder)) {
    if (!othersMayEnter(folder)) {
      return [
        `${label}: builds_root: builds (runtime.run_as_uids) cannot enter ${folder}, so stages will fail; ` +
          `allow it (chmod o+x) or move builds_root.`,
      ];
    }
    if (path.dirname(folder) === folder) return [];
  }
}

/**
 * Gives a checked-out build's sources and runtime folders to a uid of its own, leased now. Nothing runs as
 * that uid yet (whatever a previous holder left is ended first), so nothing can swap a path under the
 * `chown`; -h changes a symlink itself, never what it points at. `chown -R` runs outside the event loop and is
 * started by the builds' process starter (./spawner.ts); what it prints goes to `logPath`. Returns the user,
 * null when builds run as the server's user, or an error message when no uid is free or the chown failed.
 */
export async function handOverWorkspace(
  config: BuildsConfig,
  buildId: string,
  folders: string[],
  logPath: string,
): Promise<StageUser | null | { error: string }> {
  if (!buildsRunAsOwnUsers(config)) return null;
  const { start, end } = config.runtime.run_as_uids;
  const user = leaseBuildUser(config, buildId, usersWithProcesses(start, end));
  if (!user) return { error: `No free uid in runtime.run_as_uids (${start}-${end}): too many builds are alive.` };
  await endProcessesOfUser(user.uid);
  // 0700: other builds may not even look in.
  for (const folder of folders) fs.chmodSync(folder, 0o700);
  const args = ["-R", "-h", "--", `${user.uid}:${user.gid}`, ...folders];
  const chown = await spawnDetached({
    file: "chown",
    args,
    cwd: "/",
    env: { PATH: buildProcessBaseEnv().PATH },
    logPath,
  });
  const exit = await chown.exited;
  if (exit.code !== 0) {
    return {
      error: `Could not give the build's folders to uid ${user.uid}: chown ${chown.error ?? `exited with ${exit.code ?? exit.signal}`} (the log says more).`,
    };
  }
  return user;
}
