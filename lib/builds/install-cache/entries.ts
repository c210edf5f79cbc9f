import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { buildProcessBaseEnv } from "../../server/env";
import type { BuildsConfig } from "../config";
import type { StageUser } from "../runtime/run-as";
import { spawnDetached } from "../runtime/spawner";
import { removeFolders } from "../runtime/workspace";
import { isKeyHeld } from "./locks";

/**
 * The entries of this builder host, on its disk under builds_root (each host keeps its own, as its builds'
 * workspaces): <builds_root>/.install-cache/entries/<key>/{entry.json,data/}. `data` is the CACHE_DIR that
 * `save` filled and `restore` reads; entry.json, written only by the server, says where it came from and how it
 * is used. An entry appears whole or not at all: a save fills a fresh folder under incoming/, which the server
 * seals (owned by it, read-only to everyone) and renames into entries/ only once the save succeeded.
 */
export interface CacheEntry {
  key: string;
  /** The listed modules and those they depend on, sorted. */
  modules: string[];
  /** The commits of the build that saved it, by repository alias. */
  commits: { alias: string; commit: string }[];
  sizeBytes: number;
  savedBy: string;
  savedAt: string;
  lastUsedAt: string;
  hits: number;
}

export const CACHE_KEY_PATTERN = /^[0-9a-f]{64}$/;

function cacheRoot(config: BuildsConfig): string {
  return path.join(config.builds_root, ".install-cache");
}

function entriesFolder(config: BuildsConfig): string {
  return path.join(cacheRoot(config), "entries");
}

function entryFolder(config: BuildsConfig, key: string): string {
  if (!CACHE_KEY_PATTERN.test(key)) throw new Error(`not an install cache key: ${key}`);
  return path.join(entriesFolder(config), key);
}

/** The folder a restore reads (CACHE_DIR). */
export function entryDataFolder(config: BuildsConfig, key: string): string {
  return path.join(entryFolder(config, key), "data");
}

/**
 * The cache's folders: builds may pass through (to reach the one entry they are given) but not list them, so a
 * build learns no other key; 0711 and the server's.
 */
function ensureFolders(config: BuildsConfig): void {
  for (const folder of [cacheRoot(config), entriesFolder(config), path.join(cacheRoot(config), "incoming")]) {
    fs.mkdirSync(folder, { recursive: true, mode: 0o711 });
    fs.chmodSync(folder, 0o711);
  }
}

export function readEntry(config: BuildsConfig, key: string): CacheEntry | null {
  if (!CACHE_KEY_PATTERN.test(key)) return null;
  try {
    const entry = JSON.parse(fs.readFileSync(path.join(entryFolder(config, key), "entry.json"), "utf8")) as CacheEntry;
    return entry.key === key ? entry : null;
  } catch {
    return null;
  }
}

/** This host's entries, most recently used first. */
export function listEntries(config: BuildsConfig): CacheEntry[] {
  let names: string[];
  try {
    names = fs.readdirSync(entriesFolder(config));
  } catch {
    return [];
  }
  return names
    .map((name) => readEntry(config, name))
    .filter((entry): entry is CacheEntry => entry !== null)
    .sort((a, b) => b.lastUsedAt.localeCompare(a.lastUsedAt));
}

function writeEntryFile(folder: string, entry: CacheEntry): void {
  const file = path.join(folder, "entry.json");
  const temporary = `${file}.${crypto.randomBytes(4).toString("hex")}`;
  fs.writeFileSync(temporary, `${JSON.stringify(entry, null, 2)}\n`, { mode: 0o644 });
  fs.renameSync(temporary, file);
}

/** A restore of the entry: one hit, and its last use now (least recently used goes first). */
export function recordUse(config: BuildsConfig, key: string, at: Date): CacheEntry | null {
  const entry = readEntry(config, key);
  if (!entry) return null;
  const used = { ...entry, hits: entry.hits + 1, lastUsedAt: at.toISOString() };
  writeEntryFile(entryFolder(config, key), used);
  return used;
}

export interface IncomingEntry {
  folder: string;
  /** CACHE_DIR of the save. */
  data: string;
}

/**
 * A fresh folder for a save: given to the build's uid (the process driver as root), or open to any user for
 * containers, whose user the server does not know; its random name under a folder nobody may list keeps other
 * builds out.
 */
export function prepareIncoming(config: BuildsConfig, writer: StageUser | null | "containers"): IncomingEntry {
  ensureFolders(config);
  const folder = path.join(cacheRoot(config), "incoming", crypto.randomBytes(12).toString("hex"));
  fs.mkdirSync(folder, { mode: 0o711 });
  const data = path.join(folder, "data");
  fs.mkdirSync(data, { mode: 0o700 });
  if (writer === "containers") fs.chmodSync(data, 0o777);
  else if (writer !== null) fs.chownSync(data, writer.uid, writer.gid);
  return { folder, data };
}

export async function dropIncoming(incoming: IncomingEntry): Promise<void> {
  await removeFolders([incoming.folder]);
}

/** Runs a program on the files of an entry, outside the event loop (the builds' process starter). */
async function runTool(file: string, args: string[]): Promise<void> {
  const started = await spawnDetached({
    file,
    args,
    cwd: "/",
    env: { PATH: buildProcessBaseEnv().PATH },
    logPath: "/dev/null",
  });
  const exit = await started.exited;
  if (exit.code !== 0) throw new Error(`${file} ${started.error ?? `exited with ${exit.code ?? exit.signal}`}`);
}

/**
 * Seals a saved folder and makes it the key's entry. Called once nothing that wrote it runs any more (the save's
 * processes have ended), so nothing can swap a path under the walk: `chown -h` changes links themselves and
 * `chmod -R` does not follow them. From then on the entry is the server's and no build can write it.
 */
export async function keepIncoming(
  config: BuildsConfig,
  incoming: IncomingEntry,
  entry: Omit<CacheEntry, "sizeBytes" | "lastUsedAt" | "hits">,
): Promise<CacheEntry> {
  if (typeof process.getuid === "function" && process.getuid() === 0) {
    await runTool("chown", ["-R", "-h", "--", "0:0", incoming.data]);
  }
  await runTool("chmod", ["-R", "--", "a+rX,a-w", incoming.data]);
  const kept: CacheEntry = { ...entry, sizeBytes: await folderSize(incoming.data), lastUsedAt: entry.savedAt, hits: 0 };
  writeEntryFile(incoming.folder, kept);
  // A fresh install asked for by a rebuild replaces the key's entry.
  if (fs.existsSync(entryFolder(config, entry.key))) await discardEntryFolder(config, entry.key);
  fs.renameSync(incoming.folder, entryFolder(config, entry.key));
  return kept;
}

async function folderSize(folder: string): Promise<number> {
  let total = 0;
  for (const entry of await fs.promises.readdir(folder, { withFileTypes: true, recursive: true })) {
    const stat = await fs.promises.lstat(path.join(entry.parentPath, entry.name));
    total += stat.size;
  }
  return total;
}

/** Removes an entry; false when it is in use (a restore or a save of its key runs) or there is none. */
export async function removeEntry(config: BuildsConfig, key: string): Promise<boolean> {
  if (!CACHE_KEY_PATTERN.test(key) || isKeyHeld(key) || !fs.existsSync(entryFolder(config, key))) return false;
  await discardEntryFolder(config, key);
  return true;
}

async function discardEntryFolder(config: BuildsConfig, key: string): Promise<void> {
  // Renamed first, so that a build looking for the key from now on finds none while the files go.
  const doomed = path.join(cacheRoot(config), "incoming", `removed-${key}-${crypto.randomBytes(4).toString("hex")}`);
  fs.renameSync(entryFolder(config, key), doomed);
  await removeFolders([doomed]);
}

/**
 * click-odoo-initdb's eviction: entries unused for max_age_days go, then the least recently used past
 * max_entries. Entries in use are skipped this time. Returns the keys removed.
 */
export async function evictEntries(config: BuildsConfig, now: Date): Promise<string[]> {
  const cache = config.runtime.install_cache;
  if (!cache) return [];
  const oldest = now.getTime() - cache.max_age_days * 86_400_000;
  const removed: string[] = [];
  const entries = listEntries(config);
  for (const [index, entry] of entries.entries()) {
    const tooOld = Date.parse(entry.lastUsedAt) < oldest;
    if ((tooOld || index >= cache.max_entries) && (await removeEntry(config, entry.key))) removed.push(entry.key);
  }
  return removed;
}

/**
 * Removes what saves left behind (a crash in the middle of one): folders of incoming/ older than any save may
 * run (stage_timeout_seconds), so that a save in progress is never touched.
 */
export async function removeAbandonedSaves(config: BuildsConfig, now: Date): Promise<void> {
  const incoming = path.join(cacheRoot(config), "incoming");
  let names: string[];
  try {
    names = fs.readdirSync(incoming);
  } catch {
    return;
  }
  const limit = now.getTime() - 2 * config.stage_timeout_seconds * 1000;
  const abandoned = names
    .map((name) => path.join(incoming, name))
    .filter((folder) => (fs.statSync(folder, { throwIfNoEntry: false })?.mtimeMs ?? Infinity) < limit);
  if (abandoned.length > 0) await removeFolders(abandoned);
}
