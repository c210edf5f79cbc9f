import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { processWide } from "../../server/process-wide";
import { PULL_REF_PATTERN } from "../auto/pull-refs";
import type { BuildsConfig, RepositoryConfig } from "../config";
import { MODULE_NAME_PATTERN } from "../names";

/**
 * Local mirrors of the configured repositories, under <builds_root>/.mirrors/<alias>.git: cloned at start,
 * fetched before each build. A repository is ready when its mirror exists and its last fetch worked.
 * git always gets its arguments as an array, and values from requests only after validation (lib/builds/names.ts).
 *
 * Fetches are coalesced per repository (syncMirror): a caller shares any fetch that started after it asked,
 * whether finished, running or queued, so a burst of requests costs one or two fetches, not one each. Refs
 * are read once per fetch (one `git for-each-ref`), so resolving a branch or tag spawns nothing.
 */
const execFileAsync = promisify(execFile);

interface SyncRun {
  promise: Promise<boolean>;
  /** performance.now() when the fetch was started: it reads the repository's refs after that. */
  startedAt: number;
}

interface MirrorState {
  ready: boolean;
  lastError: string | null;
  /** The fetch (or clone) running now. */
  running: SyncRun | undefined;
  /** The fetch that starts when `running` ends, shared by everyone who asked while `running` ran. */
  queued: Promise<boolean> | undefined;
  /** When the last successful fetch started. */
  lastSuccessStartedAt: number;
  /** Every branch and tag of the mirror, read once after each sync (resolveRef). */
  refTable: Promise<RefTable> | undefined;
  /** Full commit ids looked up since the last sync ended. */
  commits: Map<string, Promise<string | null>>;
}

/** Branch and tag names to the commit they point at; `unpeeled` are tags that need git to say (tags of tags). */
interface RefTable {
  heads: Map<string, string>;
  tags: Map<string, string>;
  unpeeled: Set<string>;
}

// On globalThis: the route handlers' bundle and instrumentation's share one view of the mirrors.
const globalForMirrors = processWide<{
  buildMirrors?: Map<string, MirrorState>;
  buildModuleCache?: Map<string, string[]>;
}>("buildMirrors", () => ({}));

function mirrorState(alias: string): MirrorState {
  globalForMirrors.buildMirrors ??= new Map();
  let state = globalForMirrors.buildMirrors.get(alias);
  if (!state) {
    state = {
      ready: false,
      lastError: null,
      running: undefined,
      queued: undefined,
      lastSuccessStartedAt: -Infinity,
      refTable: undefined,
      commits: new Map(),
    };
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
 * Brings the mirror up to date with the repository as it was when the caller asked (`askedAt`, a
 * performance.now() time: for a request, when the server received it), and returns its readiness. The
 * guarantee callers rely on (POST /builds resolves refs "as they are at the time of the request"): the promise
 * settles only after a fetch that STARTED at or after `askedAt`, since a fetch that started earlier may have
 * read the refs before a push the caller knows of. So a caller
 * - gets the last fetch's result at once when that fetch worked and started after it asked;
 * - else shares the running fetch when that one started after it asked;
 * - else shares the queued fetch, which starts when the running one ends.
 * Hence at most one fetch runs and one waits per repository, whatever the number of callers (requests,
 * webhooks, polling), and a caller waits for at most two fetches. A burst of requests that the server
 * received together shares one fetch, even when it gets to them one after another.
 */
export function syncMirror(
  config: BuildsConfig,
  repository: RepositoryConfig,
  askedAt = performance.now(),
): Promise<boolean> {
  const state = mirrorState(repository.alias);
  if (state.ready && state.lastSuccessStartedAt >= askedAt) return Promise.resolve(true);
  if (state.running && state.running.startedAt >= askedAt) return state.running.promise;
  if (state.queued) return state.queued;
  const start = () => {
    const startedAt = performance.now();
    const promise = fetchOrCloneMirror(config, repository, state, startedAt).finally(() => {
      if (state.running?.promise === promise) state.running = undefined;
    });
    state.running = { promise, startedAt };
    return promise;
  };
  if (!state.running) return start();
  const queued = state.running.promise.then(() => {
    state.queued = undefined;
    return start();
  });
  state.queued = queued;
  return queued;
}

/** Clones the mirror when it is missing, fetches it otherwise; records readiness. Never rejects. */
async function fetchOrCloneMirror(
  config: BuildsConfig,
  repository: RepositoryConfig,
  state: MirrorState,
  startedAt: number,
): Promise<boolean> {
  const mirror = mirrorPath(config, repository.alias);
  let refTable: RefTable | undefined;
  try {
    // The server's alone: builds (other uids) may not read a repository they were not built from.
    fs.mkdirSync(path.dirname(mirror), { recursive: true, mode: 0o700 });
    fs.chmodSync(path.dirname(mirror), 0o700);
    if (fs.existsSync(path.join(mirror, "HEAD"))) {
      // Fetch and list the refs in one process: each process the server starts costs it a fork of its memory.
      const { stdout } = await execFileAsync(
        "/bin/sh",
        ["-c", FETCH_AND_LIST_SCRIPT, "sync", mirror, repository.resolvedUrl, REF_TABLE_FORMAT],
        {
          env: GIT_ENV,
          timeout: 300_000,
          maxBuffer: 64 * 1024 * 1024,
        },
      );
      refTable = parseRefTable(stdout);
    } else {
      // Clone beside it and rename, so that a half-made clone is never taken for a mirror.
      const partial = `${mirror}.partial-${process.pid}`;
      fs.rmSync(partial, { recursive: true, force: true });
      await git(["clone", "--mirror", "--quiet", "--", repository.resolvedUrl, partial]);
      fs.rmSync(mirror, { recursive: true, force: true });
      fs.renameSync(partial, mirror);
    }
    state.ready = true;
    state.lastError = null;
    state.lastSuccessStartedAt = Math.max(state.lastSuccessStartedAt, startedAt);
  } catch (error) {
    state.ready = false;
    state.lastError = (error as Error).message.split("\n").slice(0, 3).join(" ");
    console.error(`builds: the mirror of "${repository.alias}" could not be synced: ${state.lastError}`);
  }
  // Whatever the fetch changed, refs are looked up afresh from here on (a clone lists them when first asked).
  state.refTable = refTable && state.ready ? Promise.resolve(refTable) : undefined;
  state.commits.clear();
  return state.ready;
}

/**
 * The commit a ref names in the mirror, or null: a branch, else a tag, else a full commit id. Branches and tags
 * come from the table read once per sync; a commit id (and a tag of a tag) is asked of git with a qualified
 * name, which leaves it no room to read the value as anything else (an option, `HEAD`, a revision expression).
 */
export async function resolveRef(config: BuildsConfig, alias: string, ref: string): Promise<string | null> {
  const state = mirrorState(alias);
  const table = await refTableOf(config, alias);
  if (!table) return null;
  const head = table.heads.get(ref);
  if (head) return head;
  if (table.unpeeled.has(ref)) return revParseCommit(config, alias, `refs/tags/${ref}`);
  const tag = table.tags.get(ref);
  if (tag) return tag;
  // A pull request's head (refs/pull/<n>/head): fetched into the mirror by fetchPullRef, not by a sync.
  if (PULL_REF_PATTERN.test(ref)) return revParseCommit(config, alias, ref);
  if (!/^[0-9a-f]{40}$/.test(ref)) return null;
  // Commit ids change only by a sync: requests that ask for the same one after the same sync share one lookup.
  let commit = state.commits.get(ref);
  if (!commit) {
    commit = revParseCommit(config, alias, ref);
    state.commits.set(ref, commit);
    // Bounded: the ids come from requests. Every sync empties it anyway.
    if (state.commits.size > 1000) state.commits.delete(state.commits.keys().next().value!);
  }
  return commit;
}

// For an annotated tag, the starred fields are those of the object it points at.
const REF_TABLE_FORMAT = "%(objecttype) %(objectname) %(*objecttype) %(*objectname) %(refname)";
/** The commit a branch (only a branch, never a tag or a commit id) points at in the mirror, or null. */
export async function resolveBranch(config: BuildsConfig, alias: string, branch: string): Promise<string | null> {
  return (await refTableOf(config, alias))?.heads.get(branch) ?? null;
}

/** The branches of the mirror, as its last sync saw them (empty when it cannot be read). */
export async function listBranches(config: BuildsConfig, alias: string): Promise<string[]> {
  return (await listBranchHeads(config, alias))?.map((branch) => branch.name) ?? [];
}

/** The mirror's branches and the commit each points at, by name; null when the mirror cannot be read. */
export async function listBranchHeads(
  config: BuildsConfig,
  alias: string,
): Promise<{ name: string; commitSha: string }[] | null> {
  const table = await refTableOf(config, alias);
  return table && [...table.heads].map(([name, commitSha]) => ({ name, commitSha }));
}

async function refTableOf(config: BuildsConfig, alias: string): Promise<RefTable | null> {
  const state = mirrorState(alias);
  state.refTable ??= readRefTable(config, alias).catch((error: unknown) => {
    state.refTable = undefined;
    throw error;
  });
  return state.refTable.catch(() => null);
}

const FETCH_AND_LIST_SCRIPT =
  'git --git-dir="$1" fetch --prune --quiet -- "$2" "+refs/heads/*:refs/heads/*" "+refs/tags/*:refs/tags/*" && ' +
  'exec git --git-dir="$1" for-each-ref --format="$3" refs/heads/ refs/tags/';

async function readRefTable(config: BuildsConfig, alias: string): Promise<RefTable> {
  return parseRefTable(
    await git([
      `--git-dir=${mirrorPath(config, alias)}`,
      "for-each-ref",
      `--format=${REF_TABLE_FORMAT}`,
      "refs/heads/",
      "refs/tags/",
    ]),
  );
}

function parseRefTable(listing: string): RefTable {
  const table: RefTable = { heads: new Map(), tags: new Map(), unpeeled: new Set() };
  for (const line of listing.split("\n")) {
    const match = /^(\w+) ([0-9a-f]{40,64}) (\w*) ([0-9a-f]{40,64})? ?refs\/(heads|tags)\/(.+)$/.exec(line);
    if (!match) continue;
    const [, type, sha, targetType, target, kind, name] = match;
    if (kind === "heads") {
      if (type === "commit") table.heads.set(name, sha);
    } else if (type === "commit") {
      table.tags.set(name, sha);
    } else if (type === "tag" && targetType === "commit") {
      table.tags.set(name, target!);
    } else if (type === "tag" && targetType === "tag") {
      table.unpeeled.add(name);
    }
  }
  return table;
}

async function revParseCommit(config: BuildsConfig, alias: string, name: string): Promise<string | null> {
  try {
    const sha = (
      await git([`--git-dir=${mirrorPath(config, alias)}`, "rev-parse", "--verify", "--quiet", `${name}^{commit}`])
    ).trim();
    return /^[0-9a-f]{40}$/.test(sha) ? sha : null;
  } catch {
    return null;
  }
}

/**
 * Fetches a pull request's head ref (refs/pull/<n>/head, refs/merge-requests/<n>/head) from the repository
 * into the mirror, and returns its commit; null when the host does not have that ref (or cannot be reached).
 * The mirror's own syncs leave these refs alone: they fetch and prune branches and tags only.
 */
export async function fetchPullRef(
  config: BuildsConfig,
  repository: RepositoryConfig,
  ref: string,
  options: { mirrorSynced?: boolean } = {},
): Promise<string | null> {
  if (!PULL_REF_PATTERN.test(ref)) throw new Error(`not a pull request ref: ${ref}`);
  // A poll that has just synced the mirror fetches each pull request's ref without another full sync.
  if (!options.mirrorSynced && !(await syncMirror(config, repository))) return null;
  try {
    await git([
      `--git-dir=${mirrorPath(config, repository.alias)}`,
      "fetch",
      "--quiet",
      "--",
      repository.resolvedUrl,
      `+${ref}:${ref}`,
    ]);
  } catch (error) {
    console.error(
      `builds: ${ref} of "${repository.alias}" could not be fetched: ${(error as Error).message.split("\n")[0]}`,
    );
    return null;
  }
  return revParseCommit(config, repository.alias, ref);
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
export async function modulesAtDefaultRef(
  config: BuildsConfig,
  repository: RepositoryConfig,
): Promise<string[] | null> {
  if (!isRepositoryReady(repository.alias)) return null;
  const sha = await resolveRef(config, repository.alias, repository.default_ref);
  return sha ? listModules(config, repository, sha) : null;
}
