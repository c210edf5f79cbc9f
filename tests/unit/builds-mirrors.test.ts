import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BuildsConfig, RepositoryConfig } from "@/lib/builds/config";

/**
 * syncMirror's coalescing, against real git repositories in a temp folder. Every git command the module runs
 * is traced (GIT_TRACE, read by git from the environment the module passes on), so fetches can be counted.
 * A `reference-transaction` hook in the mirror holds each fetch for a while AFTER it has read the upstream's
 * refs: the window in which sharing the running fetch would hand a caller refs older than its request. It holds
 * only while the file `hold` exists: the tests of what a caller shares with a running fetch make it, the others
 * need no running fetch to wait for (git updates each ref in a transaction of its own: new tags would each be held).
 */
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "builds-mirrors-"));
const upstream = path.join(dir, "upstream");
const trace = path.join(dir, "git-trace.log");
const hold = path.join(dir, "hold");
let mirrors: typeof import("@/lib/builds/git/mirrors");
const config = { builds_root: path.join(dir, "builds") } as BuildsConfig;
const repository = { alias: "demo", resolvedUrl: upstream } as RepositoryConfig;

function git(cwd: string, ...args: string[]) {
  return execFileSync("git", ["-c", "user.name=Test", "-c", "user.email=test@example.com", ...args], {
    cwd,
    encoding: "utf8",
  }).trim();
}

function commit(message: string): string {
  fs.writeFileSync(path.join(upstream, "file.txt"), message);
  git(upstream, "commit", "--quiet", "-am", message);
  return git(upstream, "rev-parse", "HEAD");
}

const tracedSoFar = (command: string) =>
  fs.existsSync(trace)
    ? (fs.readFileSync(trace, "utf8").match(new RegExp(`built-in: git ${command} `, "g"))?.length ?? 0)
    : 0;
const fetchesSoFar = () => tracedSoFar("fetch");

/** Makes every fetch from here on wait 0.6 s after reading the upstream's refs (`held`), or not. */
function holdFetches(held: boolean) {
  if (held) fs.writeFileSync(hold, "");
  else fs.rmSync(hold, { force: true });
}

beforeAll(async () => {
  fs.mkdirSync(upstream);
  git(upstream, "init", "--quiet", "-b", "main");
  fs.writeFileSync(path.join(upstream, "file.txt"), "first");
  git(upstream, "add", ".");
  git(upstream, "commit", "--quiet", "-m", "first");
  process.env.GIT_TRACE = trace;
  mirrors = await import("@/lib/builds/git/mirrors");
  expect(await mirrors.syncMirror(config, repository)).toBe(true);
  const hook = path.join(mirrors.mirrorPath(config, "demo"), "hooks", "reference-transaction");
  fs.writeFileSync(hook, `#!/bin/sh\n[ "$1" = prepared ] && [ -e '${hold}' ] && sleep 0.6\nexit 0\n`, { mode: 0o755 });
});
afterAll(() => {
  delete process.env.GIT_TRACE;
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("syncMirror", () => {
  it("resolves a ref as it was when the caller asked, even while an older fetch is running", async () => {
    holdFetches(true);
    const before = commit("second");
    const first = mirrors.syncMirror(config, repository);
    // The first fetch has read `before` and is held by the hook; the branch moves meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const pushed = commit("third");
    const second = mirrors.syncMirror(config, repository);
    expect(await first).toBe(true);
    expect(await second).toBe(true);
    expect(await mirrors.resolveRef(config, "demo", "main")).toBe(pushed);
    expect(pushed).not.toBe(before);
  });

  it("shares one queued fetch among every caller that arrives while a fetch runs", async () => {
    holdFetches(true);
    commit("fourth");
    const fetchesBefore = fetchesSoFar();
    const running = mirrors.syncMirror(config, repository);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const latest = commit("fifth");
    const burst = Array.from({ length: 40 }, () => mirrors.syncMirror(config, repository));
    expect(await Promise.all([running, ...burst])).toEqual(Array(41).fill(true));
    // One running, one queued for all forty: two fetches, and every caller sees the commit made before it asked.
    expect(fetchesSoFar() - fetchesBefore).toBe(2);
    const resolved = await Promise.all(burst.map(() => mirrors.resolveRef(config, "demo", "main")));
    expect(new Set(resolved)).toEqual(new Set([latest]));
  });

  it("starts a new fetch for a caller that arrives after the last one ended", async () => {
    holdFetches(false);
    await mirrors.syncMirror(config, repository);
    const latest = commit("sixth");
    const fetchesBefore = fetchesSoFar();
    expect(await mirrors.syncMirror(config, repository)).toBe(true);
    expect(fetchesSoFar() - fetchesBefore).toBe(1);
    expect(await mirrors.resolveRef(config, "demo", "main")).toBe(latest);
  });

  it("lets a request that arrived before a fetch started share it, running or finished", async () => {
    holdFetches(true);
    const latest = commit("seventh");
    const arrived = performance.now();
    const fetchesBefore = fetchesSoFar();
    const running = mirrors.syncMirror(config, repository);
    await new Promise((resolve) => setTimeout(resolve, 100));
    // Received before the running fetch started, handled after: that fetch reads refs at least as new.
    const late = mirrors.syncMirror(config, repository, arrived);
    expect(await Promise.all([running, late])).toEqual([true, true]);
    // And once it is done, a request received before it started needs no fetch at all.
    expect(await mirrors.syncMirror(config, repository, arrived)).toBe(true);
    expect(fetchesSoFar() - fetchesBefore).toBe(1);
    expect(await mirrors.resolveRef(config, "demo", "main")).toBe(latest);
    // A request received after it started still gets a fetch of its own.
    expect(await mirrors.syncMirror(config, repository)).toBe(true);
    expect(fetchesSoFar() - fetchesBefore).toBe(2);
  });
});

describe("resolveRef", () => {
  it("resolves branches, tags (annotated, nested) and commit ids from the ref listing the sync made", async () => {
    holdFetches(false);
    const tagged = commit("eighth");
    git(upstream, "tag", "light");
    git(upstream, "tag", "-a", "-m", "annotated", "annotated");
    git(upstream, "tag", "-a", "-m", "nested", "nested", "annotated");
    git(upstream, "tag", "tree-tag", "HEAD^{tree}");
    git(upstream, "branch", "feature/x");
    const head = commit("ninth");
    const listingsBefore = tracedSoFar("for-each-ref");
    expect(await mirrors.syncMirror(config, repository)).toBe(true);
    const resolve = (ref: string) => mirrors.resolveRef(config, "demo", ref);
    expect(
      await Promise.all(
        ["main", "feature/x", "light", "annotated", "nested", "tree-tag", "missing", tagged, "0".repeat(40)].map(
          resolve,
        ),
      ),
    ).toEqual([head, tagged, tagged, tagged, tagged, null, null, tagged, null]);
    expect(await resolve("main")).toBe(head);
    expect(tracedSoFar("for-each-ref") - listingsBefore).toBe(1);
  });
});
