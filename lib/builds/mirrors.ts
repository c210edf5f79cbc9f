import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import type { BuildsConfig, RepositoryConfig } from "./config";
import { MODULE_NAME_PATTERN } from "./names";

/**
 * Local mirrors of the configured repositories, under <builds_root>/.mirrors/<alias>.git: cloned at start,
 * fetched before each build. A repository is ready when its mirror exists and its last fetch worked.
 * git always gets its arguments as an array, and values from requests only after validation (lib/builds/names.ts).
 *
 * Fetches are coalesced per repository (syncMirror): one runs at a time, and every caller that arrives while
 * one runs shares the one queued after it, so a burst of requests costs at most two fetches, not one each.
 */
const execFileAsync = promisify(execFile);

interface MirrorState {
  ready: boolean;
  lastError: string | null;
  /** The fetch (or clone) running now. */
  running: Promise<boolean> | undefined;
  /** The fetch that starts when `running` ends, shared by everyone who asked while `running` ran. */
  queued: Promise<boolean> | undefined;
  /** Refs resolved since the last sync ended, shared by the requests that resolve them (resolveRef). */
  refs: Map<string, Promise<string | null>>;
}

// On globalThis: the route handlers' bundle and instrumentation's share one view of the mirrors.
const globalForMirrors = globalThis as unknown as {
  buildMirrors?: Map<string, MirrorState>;
  buildModuleCache?: Map<string, string[]>;
};

function mirrorState(alias: string): MirrorState {
  globalForMirrors.buildMirrors ??= new Map();
  let state = globalForMirrors.buildMirrors.get(alias);
  if (!state) {
    state = { ready: false, lastError: null, running: undefined, queued: undefined, refs: new Map() };
    globalForMirrors.buildMirrors.set(alias, state);
  }
  return state;
}

const GIT_ENV = {
  ...process.env,
  // Never wait for a password prompt, and never read the operator's global settings into a build.
  GIT_TERMINAL_PROMPT: "0",
  GIT_CONFIG_NOSYSTEM: "1",
  LC_ALL: "C",
};

export async function git(args: string[], options: { cwd?: string; timeoutMs?: number } = {}): Promise<string> {
  const { stdout } = await execFileAsync("git", args, {
    cwd: options.cwd,
    env: GIT_ENV,
    timeout: options.timeoutMs ?? 300_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout;
}

export function mirrorPath(config: BuildsConfig, alias: string): string {
  return path.join(config.builds_root, ".mirrors", `${alias}.git`);
}

export function isRepositoryReady(alias: string): boolean {
  return mirrorState(alias).ready;
}

/**
 * Brings the mirror up to date with the repository as it is at the time of the call, and returns its
 * readiness. The guarantee callers rely on (POST /builds resolves refs "as they are now"): the promise settles
 * only after a fetch that STARTED after the call. A fetch already running when the call arrives may have read
 * the repository's refs before a push the caller knows of, so the caller does not share it: it shares the
 * queued fetch, which starts when the running one ends (after the call, so good for every caller that joined
 * it). Hence at most one fetch runs and one waits per repository, whatever the number of callers (requests,
 * webhooks, polling), and a caller waits for at most two fetches.
 */
export function syncMirror(config: BuildsConfig, repository: RepositoryConfig): Promise<boolean> {
  const state = mirrorState(repository.alias);
  if (state.queued) return state.queued;
  const start = () => {
    const run = fetchOrCloneMirror(config, repository, state).finally(() => {
      if (state.running === run) state.running = undefined;
    });
    state.running = run;
    return run;
  };
  if (!state.running) return start();
  const queued = state.running.then(() => {
    state.queued = undefined;
    return start();
  });
  state.queued = queued;
  return queued;
}

/** Clones the mirror when it is missing, fetches it otherwise; records readiness. Never rejects. */
async function fetchOrCloneMirror(config: BuildsConfig, repository: RepositoryConfig, state: MirrorState): Promise<boolean> {
  const mirror = mirrorPath(config, repository.alias);
  try {
    if (fs.existsSync(path.join(mirror, "HEAD"))) {
      await git([
        `--git-dir=${mirror}`,
        "fetch",
        "--prune",
        "--quiet",
        "--",
        repository.resolvedUrl,
        "+refs/heads/*:refs/heads/*",
        "+refs/tags/*:refs/tags/*",
      ]);
    } else {
      // Clone beside it and rename, so that a half-made clone is never taken for a mirror.
      const partial = `${mirror}.partial-${process.pid}`;
      fs.rmSync(partial, { recursive: true, force: true });
      fs.mkdirSync(path.dirname(mirror), { recursive: true });
      await git(["clone", "--mirror", "--quiet", "--", repository.resolvedUrl, partial]);
      fs.rmSync(mirror, { recursive: true, force: true });
      fs.renameSync(partial, mirror);
    }
    state.ready = true;
    state.lastError = null;
  } catch (error) {
    state.ready = false;
    state.lastError = (error as Error).message.split("\n").slice(0, 3).join(" ");
    console.error(`builds: the mirror of "${repository.alias}" could not be synced: ${state.lastError}`);
  }
  // Whatever the fetch changed, refs are looked up afresh from here on.
  state.refs.clear();
  return state.ready;
}

/**
 * The commit a ref names in the mirror, or null: a branch, else a tag, else a full commit id. Qualified ref
 * names leave git no room to read the value as anything else (an option, `HEAD`, a revision expression).
 */
export function resolveRef(config: BuildsConfig, alias: string, ref: string): Promise<string | null> {
  // Refs change only by a sync: requests that resolve the same ref after the same sync share one lookup.
  const state = mirrorState(alias);
  let resolved = state.refs.get(ref);
  if (!resolved) {
    resolved = lookUpRef(config, alias, ref);
    state.refs.set(ref, resolved);
    // Bounded: the names come from requests. Every sync empties it anyway.
    if (state.refs.size > 1000) state.refs.delete(state.refs.keys().next().value!);
  }
  return resolved;
}

async function lookUpRef(config: BuildsConfig, alias: string, ref: string): Promise<string | null> {
  const candidates = [`refs/heads/${ref}`, `refs/tags/${ref}`];
  if (/^[0-9a-f]{40}$/.test(ref)) candidates.push(ref);
  for (const candidate of candidates) {
    try {
      const sha = (
        await git([`--git-dir=${mirrorPath(config, alias)}`, "rev-parse", "--verify", "--quiet", `${candidate}^{commit}`])
      ).trim();
      if (/^[0-9a-f]{40}$/.test(sha)) return sha;
    } catch {
      /* not this kind of ref */
    }
  }
  return null;
}

/** The module names of a repository at a commit: directories under modules_path holding the manifest. */
export async function listModules(config: BuildsConfig, repository: RepositoryConfig, sha: string): Promise<string[]> {
  globalForMirrors.buildModuleCache ??= new Map();
  const key = `${repository.alias}\0${sha}\0${repository.modules_path}\0${repository.module_manifest}`;
  const cached = globalForMirrors.buildModuleCache.get(key);
  if (cached) return cached;
  const base = path.posix.normalize(repository.modules_path.replace(/\\/g, "/")).replace(/\/$/, "");
  const args = [`--git-dir=${mirrorPath(config, repository.alias)}`, "ls-tree", "-r", "-z", "--name-only", sha];
  if (base !== ".") args.push("--", base);
  const files = (await git(args)).split("\0");
  const prefix = base === "." ? "" : `${base}/`;
  const modules = new Set<string>();
  for (const file of files) {
    if (!file.startsWith(prefix) || !file.endsWith(`/${repository.module_manifest}`)) continue;
    const parts = file.slice(prefix.length).split("/");
    if (parts.length === 2 && MODULE_NAME_PATTERN.test(parts[0])) modules.add(parts[0]);
  }
  const sorted = [...modules].sort();
  globalForMirrors.buildModuleCache.set(key, sorted);
  return sorted;
}

/** The commit of the default ref and its modules, for GET /app-config; null where it cannot be read. */
export async function modulesAtDefaultRef(config: BuildsConfig, repository: RepositoryConfig): Promise<string[] | null> {
  if (!isRepositoryReady(repository.alias)) return null;
  const sha = await resolveRef(config, repository.alias, repository.default_ref);
  return sha ? listModules(config, repository, sha) : null;
}
