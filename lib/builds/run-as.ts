import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import type { BuildsConfig } from "./config";
import { spawnDetached } from "./spawner";

/**
 * Who the `process` driver's stages and runtimes run as. A server running as root runs them as
 * runtime.run_as (default `nobody`), so that a branch cannot read the data folder (database, secret: 0700 and
 * 0600, owned by root) nor signal the server. A server that is not root cannot switch users: stages then run
 * as its own user and can read what it can, which is why the README calls `process` a driver for trusted
 * repositories only. The checkout stays the server's work (git runs as the server, from its mirrors); the
 * build's sources and runtime folders are then handed to the user.
 */
export interface StageUser {
  name: string;
  uid: number;
  gid: number;
}

export class StageUserError extends Error {}

const resolved = new Map<string, StageUser | null>();

/** `id` asks the system's user database (NSS), so users from LDAP or systemd work as well as /etc/passwd. */
function lookUpUser(name: string): StageUser | null {
  if (!resolved.has(name)) {
    try {
      const uid = Number(execFileSync("id", ["-u", "--", name], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim());
      const gid = Number(execFileSync("id", ["-g", "--", name], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim());
      resolved.set(name, Number.isInteger(uid) && Number.isInteger(gid) ? { name, uid, gid } : null);
    } catch {
      resolved.set(name, null);
    }
  }
  return resolved.get(name) ?? null;
}

function serverIsRoot(): boolean {
  return typeof process.getuid === "function" && process.getuid() === 0;
}

/** The user to run stages as, or null when they run as the server's own user (the server is not root). */
export function stageUser(config: BuildsConfig): StageUser | null {
  if (!serverIsRoot()) return null;
  const user = lookUpUser(config.runtime.run_as);
  if (!user) throw new StageUserError(`runtime.run_as: there is no user "${config.runtime.run_as}" on this machine.`);
  return user.uid === 0 ? null : user;
}

/** Whether `user` may enter `folder` (search permission), by its mode bits. */
function canEnter(folder: string, user: StageUser): boolean {
  const stat = fs.statSync(folder);
  if (stat.uid === user.uid) return (stat.mode & 0o100) !== 0;
  if (stat.gid === user.gid) return (stat.mode & 0o010) !== 0;
  return (stat.mode & 0o001) !== 0;
}

/**
 * Checked at start: the user exists and builds_root is outside the data folder (which that user must not
 * enter), or StageUserError names what to change. A folder above builds_root that does not let the user
 * through is answered with a warning only: builds would fail at their first stage, saying permission denied,
 * but the rest of the service works, and a checkout in a private folder (a CI clone under `mktemp -d`) with
 * builds configured elsewhere must still start.
 */
export function checkStageUser(config: BuildsConfig, dataDir: string): string[] {
  if (config.runtime.driver !== "process") return [];
  const user = stageUser(config);
  if (!user) return [];
  const label = path.basename(config.file);
  const relative = path.relative(path.resolve(dataDir), config.builds_root);
  if (relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative))) {
    throw new StageUserError(
      `${label}: builds_root: ${config.builds_root} is inside the data folder ${dataDir}, which stages running as ` +
        `"${user.name}" (runtime.run_as) must not enter; put the builds elsewhere, e.g. builds_root: ./builds.`,
    );
  }
  fs.mkdirSync(config.builds_root, { recursive: true });
  for (let folder = config.builds_root; ; folder = path.dirname(folder)) {
    if (!canEnter(folder, user)) {
      return [
        `${label}: builds_root: the user "${user.name}" (runtime.run_as) cannot enter ${folder}, so stages will fail; ` +
          `allow it (chmod o+x) or move builds_root.`,
      ];
    }
    if (path.dirname(folder) === folder) return [];
  }
}

/**
 * Gives a checked-out build's sources and runtime folders to the stage user, when there is one. `chown -R`
 * runs outside the event loop, unlike a recursive walk in JavaScript over a large checkout, and is started by
 * the builds' process starter (./spawner.ts), not forked from the server; what it prints goes to `logPath`.
 */
export async function handOverWorkspace(config: BuildsConfig, folders: string[], logPath: string): Promise<void> {
  if (config.runtime.driver !== "process") return;
  const user = stageUser(config);
  if (!user) return;
  // -h: a symlink in the checkout is changed itself, never what it points at (it could point at the database).
  const args = ["-R", "-h", "--", `${user.uid}:${user.gid}`, ...folders];
  const chown = await spawnDetached({ file: "chown", args, cwd: "/", env: { PATH: process.env.PATH ?? "/usr/bin:/bin" }, logPath });
  const exit = await chown.exited;
  if (exit.code !== 0) {
    throw new Error(`Could not give the build's folders to ${config.runtime.run_as}: chown ${chown.error ?? `exited with ${exit.code ?? exit.signal}`} (the log says more).`);
  }
}
