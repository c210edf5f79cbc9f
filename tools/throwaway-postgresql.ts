/**
 * A PostgreSQL cluster of its own in a temp folder, for the tests (tests/support/postgresql.ts) and for
 * writing a migration (scripts/add-migration.ts): Debian's postgresql-15 (or newer) binaries, `initdb` and
 * `pg_ctl` run as the `postgres` user when we are root (initdb refuses root), listening on loopback only, on a
 * free port, with durability off (a throwaway cluster needs none, and fsync would make every test slower).
 * `stop()` ends it and deletes the folder.
 */
import { type ExecFileSyncOptions, execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { freePort } from "./processes";

export interface ThrowawayPostgresql {
  /** A superuser URL of the `postgres` database, on 127.0.0.1. */
  url: string;
  port: number;
  /** The URL of another database of the same cluster. */
  urlOf(database: string): string;
  /** The folder of the server's Unix socket: `?host=<it>&port=<port>` in a URL reaches it without TCP. */
  socketFolder: string;
  /**
   * Stops the server and keeps its data (an outage, a restart); `startServer` starts it again on the same port,
   * with `{ tcp: false }` on its Unix socket only, so that a test reaches it while the app, on TCP, still cannot.
   */
  stopServer(): void;
  startServer(options?: { tcp?: boolean }): void;
  stop(): void;
}

/** The newest installed PostgreSQL's bin folder, 15 or later; POSTGRESQL_BIN overrides it. */
export function postgresqlBinFolder(): string {
  const fromEnv = process.env.POSTGRESQL_BIN;
  if (fromEnv) return fromEnv;
  const root = "/usr/lib/postgresql";
  const versions = fs.existsSync(root)
    ? fs
        .readdirSync(root)
        .map(Number)
        .filter((version) => version >= 15)
        .sort((a, b) => b - a)
    : [];
  if (versions.length === 0) {
    throw new Error(
      "PostgreSQL 15 or later is not installed (apt-get install postgresql); POSTGRESQL_BIN may name its bin folder.",
    );
  }
  return path.join(root, String(versions[0]), "bin");
}

/** Whose uid and gid the cluster runs as: `postgres` when we are root, else ourselves. */
function clusterOwner(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
  const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
  return { uid, gid };
}

export async function startThrowawayPostgresql(): Promise<ThrowawayPostgresql> {
  const bin = postgresqlBinFolder();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "throwaway-postgresql-"));
  const dataDir = path.join(dir, "data");
  const owner = clusterOwner();
  if (owner) fs.chownSync(dir, owner.uid, owner.gid);
  const run = (command: string, args: string[]) => {
    const options: ExecFileSyncOptions = { stdio: ["ignore", "pipe", "pipe"], cwd: dir, ...(owner ?? {}) };
    try {
      execFileSync(path.join(bin, command), args, options);
    } catch (error) {
      const { stdout, stderr } = error as { stdout?: Buffer; stderr?: Buffer };
      throw new Error(`${command} failed: ${String(stdout ?? "")}${String(stderr ?? "")}`);
    }
  };
  run("initdb", ["-D", dataDir, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync", "--no-instructions"]);
  const port = await freePort();
  const serverOptions = (tcp: boolean) =>
    [
      `-p ${port}`,
      `-k ${dir}`,
      tcp ? "-c listen_addresses=127.0.0.1" : "-c listen_addresses=''",
      "-c fsync=off",
      "-c synchronous_commit=off",
      "-c full_page_writes=off",
      "-c max_connections=200",
    ].join(" ");
  const startServer = ({ tcp = true }: { tcp?: boolean } = {}) =>
    run("pg_ctl", [
      "-D",
      dataDir,
      "-o",
      serverOptions(tcp),
      "-l",
      path.join(dir, "server.log"),
      "-w",
      "-t",
      "60",
      "start",
    ]);
  startServer();
  const urlOf = (database: string) => `postgresql://postgres@127.0.0.1:${port}/${database}`;
  let stopped = false;
  return {
    url: urlOf("postgres"),
    port,
    urlOf,
    socketFolder: dir,
    // Fast: the server ends every session at once, as a restart or a failover does to the app's connections.
    stopServer: () => run("pg_ctl", ["-D", dataDir, "-m", "fast", "-w", "stop"]),
    startServer,
    stop() {
      if (stopped) return;
      stopped = true;
      try {
        // A server that a test left stopped has nothing to stop.
        if (fs.existsSync(path.join(dataDir, "postmaster.pid")))
          run("pg_ctl", ["-D", dataDir, "-m", "immediate", "-w", "stop"]);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
