import fs from "node:fs";
import path from "node:path";
import { processWide } from "./process-wide";

/**
 * The data folder holds the database and the generated secret: only the server's user may read them, so
 * stages running as another user (runtime.run_as_uids) cannot. Applied at every start and wherever the database
 * is opened, since a database copied or created by hand may be 0644. SQLite gives the -wal, -shm and
 * -journal files the mode of the database file, so a 0600 database keeps them 0600 too.
 */
const PRIVATE_FILES = ["", "-wal", "-shm", "-journal"];

export function secureDataFolder(databaseFile: string): void {
  const folder = path.dirname(databaseFile);
  fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
  const stat = fs.statSync(folder);
  // A shared folder such as /tmp (sticky) or another user's is not ours to close: the files' own 0600 still hold.
  const ours = typeof process.getuid !== "function" || stat.uid === process.getuid();
  if (ours && (stat.mode & 0o1000) === 0 && path.dirname(folder) !== folder) fs.chmodSync(folder, 0o700);
  // Created here (not by SQLite) so that the database is 0600 from its first byte.
  fs.closeSync(fs.openSync(databaseFile, "a", 0o600));
  for (const file of [...PRIVATE_FILES.map((suffix) => databaseFile + suffix), path.join(folder, "nextauth-secret")]) {
    try {
      fs.chmodSync(file, 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
  }
}

const globalForDataFolder = processWide<{ securedDatabaseFiles?: Set<string> }>("securedDatabaseFiles", () => ({}));

/**
 * secureDataFolder, once per process and database file, before the process opens its first connection to it.
 * Call it before opening any connection. Once SQLite holds the file, the process must not open and close it
 * again: closing any descriptor of a file drops every POSIX lock the process holds on it, SQLite's included,
 * and another process could then write under a connection that believes it holds a lock (sqlite.org/howtocorrupt.html, 2.2).
 */
export function secureDataFolderBeforeOpening(databaseFile: string): void {
  const secured = (globalForDataFolder.securedDatabaseFiles ??= new Set());
  if (secured.has(databaseFile)) return;
  secureDataFolder(databaseFile);
  secured.add(databaseFile);
}
