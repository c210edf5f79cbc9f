import fs from "node:fs";
import path from "node:path";

/**
 * One server per data folder: the builds executor, the reaper and the scheduled fetch assume they are alone
 * with the database and the builds. A running server records its pid in DATA_DIR/server.pid; a second one on
 * the same folder stops with a message naming the first (scripts/prepare-start.ts before migrating, whose
 * schema engine would otherwise fail with an obscure "SocketTimeout"; instrumentation.ts for `next start` run
 * by hand). A file left by a server that died (killed, crashed, a reboot) names a pid that is gone or belongs
 * to another program, and is ignored.
 */
const PID_FILE = "server.pid";

export class DataFolderInUseError extends Error {}

/**
 * At the server's start: records this process as the data folder's server, or stops it with a message naming
 * the server already there. (Next would log an error thrown from instrumentation and serve anyway.)
 */
export function claimDataFolder(dataDir: string): void {
  try {
    assertNoOtherServer(dataDir);
  } catch (error) {
    if (!(error instanceof DataFolderInUseError)) throw error;
    console.error(error.message);
    process.exit(1);
  }
  recordServerPid(dataDir);
}

/** Records this process as the data folder's server, until it exits. */
function recordServerPid(dataDir: string): void {
  const file = path.join(dataDir, PID_FILE);
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  fs.writeFileSync(file, `${process.pid}\n`, { mode: 0o600 });
  process.once("exit", () => {
    try {
      if (fs.readFileSync(file, "utf8").trim() === String(process.pid)) fs.rmSync(file);
    } catch {
      // Already gone: nothing to clean.
    }
  });
}

/** Throws DataFolderInUseError when another live server uses `dataDir`. */
export function assertNoOtherServer(dataDir: string): void {
  const pid = otherServerPid(dataDir);
  if (pid === null) return;
  throw new DataFolderInUseError(
    `Another server (pid ${pid}) is using the data folder ${dataDir}. Stop it first, or give this one its own ` +
      "folder (DATABASE_URL=file:/another/folder/app.db).",
  );
}

function otherServerPid(dataDir: string): number | null {
  let pid: number;
  try {
    pid = Number(fs.readFileSync(path.join(dataDir, PID_FILE), "utf8").trim());
  } catch {
    return null;
  }
  if (!Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid || !isAlive(pid)) return null;
  try {
    // Next names its server process "next-server (v…)"; a pid reused by another program is not a server.
    return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("next") ? pid : null;
  } catch {
    // Without /proc (not Linux), a live process with the recorded pid is taken for the server; with it, the
    // process has just ended.
    return fs.existsSync("/proc/self") ? null : pid;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: alive, but another user's.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
