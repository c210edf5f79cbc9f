import path from "node:path";
import { buildProcessBaseEnv } from "../../server/env";
import type { BuildsConfig } from "../config";
import { RuntimeUnavailableError, type WorkspacePaths } from "./driver";
import { endProcessesOfUser } from "./processes";
import { buildUser, releaseBuildUser } from "./run-as";
import { spawnDetached } from "./spawner";

/** A build's folder: <builds_root>/<build_id>/{sources,logs,runtime}. */
export function workspacePaths(config: BuildsConfig, buildId: string): WorkspacePaths {
  const root = path.join(config.builds_root, buildId);
  return {
    root,
    sources: path.join(root, "sources"),
    logs: path.join(root, "logs"),
    runtime: path.join(root, "runtime"),
  };
}

/**
 * The absolute path of a log file a build recorded, or null when the recorded name would lead outside the
 * build's logs folder. Log reads go through here only.
 */
export function recordedLogPath(config: BuildsConfig, buildId: string, logFile: string | null): string | null {
  if (!logFile || !/^[a-z]+\.log$/.test(logFile)) return null;
  const logs = workspacePaths(config, buildId).logs;
  const resolved = path.resolve(logs, logFile);
  return path.dirname(resolved) === logs ? resolved : null;
}

/**
 * Run as the build's own uid (argv: uid, then its folders): empties the folders, made writable first (a build
 * may have taken the write bit off its own folders), and removes what the uid left at the top of the shared
 * temporary folders, so that the next build given this uid finds nothing of this one. As that uid it cannot
 * delete anything it could not delete anyway, wherever a link leads.
 */
const REMOVE_AS_BUILD_USER_SCRIPT = `
uid=$1
shift
for folder in "$@"; do
  [ -d "$folder" ] || continue
  chmod -R u+rwx -- "$folder" 2>/dev/null
  find "$folder" -mindepth 1 -maxdepth 1 -exec rm -rf -- {} + 2>/dev/null
done
find /tmp /var/tmp /dev/shm -xdev -mindepth 1 -maxdepth 1 -user "$uid" -exec rm -rf -- {} + 2>/dev/null
exit 0
`;

/**
 * Removes folders with GNU rm, started by the builds' process starter (outside the event loop). GNU rm walks a
 * tree through file descriptors opened without following symlinks and checks that each folder it enters is
 * the one it looked at, so a symlink swapped in for a folder while it works is removed, never followed; and
 * --one-file-system keeps it off anything mounted below.
 */
export async function removeFolders(folders: string[], user?: { uid: number; gid: number }): Promise<void> {
  const asUser = user && [
    "--reuid",
    String(user.uid),
    "--regid",
    String(user.gid),
    "--clear-groups",
    "--no-new-privs",
    "--",
  ];
  const rm = asUser
    ? {
        file: "setpriv",
        args: [...asUser, "/bin/sh", "-c", REMOVE_AS_BUILD_USER_SCRIPT, "remove", String(user!.uid), ...folders],
      }
    : { file: "rm", args: ["-rf", "--one-file-system", "--", ...folders] };
  const started = await spawnDetached({
    ...rm,
    cwd: "/",
    env: { PATH: buildProcessBaseEnv().PATH },
    logPath: "/dev/null",
  });
  const exit = await started.exited;
  if (exit.code !== 0) {
    // Stays recorded (port, runtime handle), so the reaper tries again.
    throw new RuntimeUnavailableError(
      `Could not remove ${folders.join(" and ")}: ${started.error ?? `rm exited with ${exit.code ?? exit.signal}`}.`,
    );
  }
}

/**
 * Removes what a runtime needs (sources and runtime folders) and keeps the logs. Nothing the server does as
 * root here follows a path the build can change: the build's processes are gone first (the
 * driver's destroy ended them; checked again here), then the build's own uid empties its folders, then the
 * server removes what is left (empty folders, or, for the compose driver, files its containers wrote as root)
 * by a walk that cannot follow links. The build's uid is free for another build only after all that.
 */
export async function removeRuntimeFiles(config: BuildsConfig, buildId: string): Promise<void> {
  const paths = workspacePaths(config, buildId);
  const user = buildUser(config, buildId);
  if (user) {
    await endProcessesOfUser(user.uid);
    await removeFolders([paths.sources, paths.runtime], user);
  }
  await removeFolders([paths.runtime, paths.sources]);
  if (user) releaseBuildUser(config, buildId);
}
