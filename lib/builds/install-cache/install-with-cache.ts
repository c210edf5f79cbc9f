import fs from "node:fs";
import { instanceMetrics } from "../../metrics/registry";
import type { BuildsConfig } from "../config";
import { logStamp } from "../logs/log-time";
import type { BuildContext, StageControl, StageResult } from "../runtime/driver";
import type { StageUser } from "../runtime/run-as";
import {
  type CacheEntry,
  dropIncoming,
  entryDataFolder,
  evictEntries,
  keepIncoming,
  prepareIncoming,
  readEntry,
  recordUse,
  removeAbandonedSaves,
} from "./entries";
import { installCacheKey } from "./key";
import { isKeyHeld, LockWaitAborted, withKeyLock } from "./locks";

export type CacheCommand = NonNullable<BuildsConfig["runtime"]["install_cache"]>["save"];

/** What the driver's install stage lends the cache: its install, and a way to run `save` and `restore`. */
export interface CacheCommandRunner {
  /** The install as the driver runs it without a cache. */
  install(): Promise<StageResult>;
  /** Runs a save or restore command of the driver's kind with CACHE_DIR set to `cacheDir`. */
  run(command: CacheCommand, cacheDir: string, access: "read" | "write"): Promise<StageResult>;
  /** Who writes a save's folder: the build's uid, the server's user (null), or containers of unknown users. */
  writer: StageUser | null | "containers";
  /** Ends whatever the save left running that could still write its folder: the entry is sealed next. */
  endWriters(): Promise<void>;
}

/**
 * The install stage with the install cache (runtime.install_cache), the one place a driver's install goes
 * through. A hit restores the key's entry instead of installing; a miss installs and, on success, saves a new
 * entry; a restore that fails falls back to the install. Builds of one key take turns (./locks.ts), so two at
 * once install once. Everything it decides is said in the stage's log.
 */
export async function installWithCache(
  build: BuildContext,
  control: StageControl,
  runner: CacheCommandRunner,
): Promise<StageResult> {
  const { config } = build;
  const cache = config.runtime.install_cache;
  if (!cache) return runner.install();
  const log = (line: string) => fs.appendFileSync(control.logPath, `${logStamp()} [install cache] ${line}\n`);
  const { key, modules } = await installCacheKey(build);
  log(`key ${key} (modules ${modules.join(", ") || "none"})`);
  if (isKeyHeld(key)) log("another build is installing or restoring the same key on this host: waiting for it");
  let result: StageResult;
  try {
    result = await withKeyLock(key, control.signal, async () => {
      const entry = build.installCache === false ? null : readEntry(config, key);
      if (build.installCache === false)
        log("not used: this build asked for a fresh install, saved anew if it succeeds");
      if (entry) {
        const restored = await restore(build, runner, entry, log);
        if (restored) return restored;
      } else if (build.installCache !== false) {
        log("miss: no entry of this key on this host; installing");
      }
      instanceMetrics().installCacheLookups.inc({ outcome: "miss" });
      const installed = await runner.install();
      if (installed.status === "skipped") return installed;
      if (installed.status !== "succeeded") {
        log("the install did not succeed: nothing is saved");
        return installed;
      }
      const saved = await save(build, runner, key, modules, log);
      return saved.status === "canceled" ? saved : installed;
    });
  } catch (error) {
    if (error instanceof LockWaitAborted) return { status: "canceled" };
    throw error;
  }
  try {
    const now = new Date();
    for (const removed of await evictEntries(config, now))
      log(`evicted entry ${removed} (least recently used or too old)`);
    await removeAbandonedSaves(config, now);
  } catch (error) {
    log(`could not evict old entries: ${(error as Error).message}`);
  }
  return result;
}

/** A hit: the restore's result marked cached, or null when it failed and the install must run. */
async function restore(
  build: BuildContext,
  runner: CacheCommandRunner,
  entry: CacheEntry,
  log: (line: string) => void,
): Promise<StageResult | null> {
  log(
    `hit: restoring entry ${entry.key}, saved by build ${entry.savedBy} at ${entry.savedAt} ` +
      `(${entry.sizeBytes} bytes, restored ${entry.hits} times before)`,
  );
  const restored = await runner.run(
    build.config.runtime.install_cache!.restore,
    entryDataFolder(build.config, entry.key),
    "read",
  );
  if (restored.status === "canceled") return restored;
  if (restored.status === "succeeded") {
    recordUse(build.config, entry.key, new Date());
    instanceMetrics().installCacheLookups.inc({ outcome: "hit" });
    log("restored: the install was not run");
    return { status: "succeeded", exitCode: restored.exitCode, cached: true };
  }
  log(
    `the restore failed (${restored.status === "failed" ? restored.message : restored.status}); falling back to a full install`,
  );
  return null;
}

/** After a successful install: fills a fresh folder with `save`, then keeps it as the key's entry. */
async function save(
  build: BuildContext,
  runner: CacheCommandRunner,
  key: string,
  modules: string[],
  log: (line: string) => void,
): Promise<StageResult> {
  const { config } = build;
  const incoming = prepareIncoming(config, runner.writer);
  log("saving the install as a new entry");
  const saved = await runner.run(config.runtime.install_cache!.save, incoming.data, "write");
  await runner.endWriters();
  if (saved.status !== "succeeded") {
    await dropIncoming(incoming);
    if (saved.status === "failed") log(`the save failed (${saved.message}): no entry is kept; the build goes on`);
    return saved;
  }
  const kept = await keepIncoming(config, incoming, {
    key,
    modules,
    commits: build.repositories.map((repository) => ({ alias: repository.alias, commit: repository.commitSha ?? "" })),
    savedBy: build.buildId,
    savedAt: new Date().toISOString(),
  });
  log(`saved entry ${kept.key} (${kept.sizeBytes} bytes)`);
  return saved;
}
