import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  type BuildJson,
  type BuildsApp,
  fixtureUids,
  makeBuildsFixture,
  startBuildsApp,
  tearDownBuilds,
} from "../support/builds";
import { registerAndGetToken } from "../support/users";

/**
 * runtime.install_cache with the process driver and a real git repository: the install writes a "database" file
 * into the build's runtime folder, `save` copies it into CACHE_DIR, `restore` copies it back (and tries to write the
 * entry, which it must not be able to). Control files of the test make an install, a save or a restore fail.
 */
const asRoot = process.getuid?.() === 0;
const METRICS_TOKEN = "metrics-token-for-the-install-cache-0123456789";

let builds: BuildsApp;
let controls: string;
let entriesFolder: string;

function git(cwd: string, ...args: string[]) {
  return execFileSync("git", ["-c", "user.name=Test", "-c", "user.email=test@example.com", ...args], {
    cwd,
    encoding: "utf8",
  }).trim();
}

function commit(file: string, content: string): string {
  const repository = builds.fixture.repository;
  fs.writeFileSync(path.join(repository, file), content);
  git(repository, "add", ".");
  git(repository, "commit", "--quiet", "-m", `change ${file}`);
  return git(repository, "rev-parse", "HEAD");
}

beforeAll(async () => {
  const fixture = makeBuildsFixture(
    (partial) => {
      const scripts = path.join(partial.root, "scripts");
      controls = path.join(partial.root, "controls");
      fs.mkdirSync(scripts);
      fs.mkdirSync(controls);
      // Builds' uids mark a one-time failure here (mkdir is atomic: the first of two builds takes it).
      fs.chmodSync(controls, 0o777);
      fs.writeFileSync(
        path.join(scripts, "install.sh"),
        `set -e
node stages/install.mjs
if [ -e ${controls}/fail-install ]; then echo "install fails"; exit 4; fi
if [ -e ${controls}/fail-next-install ] && mkdir ${controls}/failed-once 2>/dev/null; then echo "install fails once"; exit 4; fi
echo "database of $MODULES installed by build $BUILD_ID" > "$WORKSPACE/runtime/database.txt"
`,
      );
      fs.writeFileSync(
        path.join(scripts, "save.sh"),
        `if [ -e ${controls}/fail-save ]; then echo "save fails"; exit 5; fi
cp "$WORKSPACE/runtime/database.txt" "$CACHE_DIR/database.txt" && echo "saved into $CACHE_DIR"
`,
      );
      fs.writeFileSync(
        path.join(scripts, "restore.sh"),
        `if [ -e ${controls}/fail-restore ]; then echo "restore fails"; exit 6; fi
if (echo tampered >> "$CACHE_DIR/database.txt") 2>/dev/null || touch "$CACHE_DIR/planted" 2>/dev/null; then echo "entry was writable"; else echo "entry is read-only"; fi
cp "$CACHE_DIR/database.txt" "$WORKSPACE/runtime/database.txt"
echo "restored: $(cat "$CACHE_DIR/database.txt")"
`,
      );
      entriesFolder = path.join(partial.buildsRoot, ".install-cache", "entries");
      return `
builds_root: ${partial.buildsRoot}
max_concurrent_builds: 2
ttl: { default_seconds: 3600, min_seconds: 60, max_seconds: 86400, choices: [3600] }
ports: { start: ${partial.ports.start}, end: ${partial.ports.end} }
stage_timeout_seconds: 60
reaper_interval_seconds: 0.5
runtime:
  driver: process
  run_as_uids: ${JSON.stringify(fixtureUids(partial.ports))}
  install: sh ${scripts}/install.sh
  test: node stages/test.mjs
  start: node stages/server.mjs
  healthcheck: { path: "/", timeout_seconds: 20 }
  install_cache:
    save: sh ${scripts}/save.sh
    restore: sh ${scripts}/restore.sh
    max_entries: 2
repositories:
  - alias: demo
    url: ./repo
    default_ref: main
    modules_path: addons
    module_manifest: manifest.json
`;
    },
    ["m_one", "m_two", "m_three", "pausing_install"],
  );
  // m_two depends on m_one: a change to m_one changes what an install of m_two reads.
  fs.writeFileSync(
    path.join(fixture.repository, "addons", "m_two", "manifest.json"),
    JSON.stringify({ name: "m_two", depends: ["m_one"] }),
  );
  git(fixture.repository, "commit", "--quiet", "-am", "m_two depends on m_one");
  builds = await startBuildsApp(fixture, { METRICS_TOKEN });
});
afterAll(() => tearDownBuilds(builds));
beforeEach(() => {
  for (const name of fs.readdirSync(controls)) fs.rmSync(path.join(controls, name), { recursive: true, force: true });
});

async function build(modules: string[], statuses = ["running", "failed"]): Promise<BuildJson> {
  const response = await builds.post({ repository: "demo", ref: "main", modules });
  expect(response.status).toBe(202);
  return builds.waitForStatus(((await response.json()) as BuildJson).build_id, statuses);
}

async function installLog(buildId: string): Promise<string> {
  return ((await (await builds.get(`/builds/${buildId}/logs?stage=install`)).json()) as { content: string }).content;
}

const installStage = (b: BuildJson) => b.stages.find((stage) => stage.name === "install")!;
const commitOf = (b: BuildJson) => (b.repositories as { commit_sha: string }[])[0].commit_sha;

interface Entry {
  key: string;
  modules: string[];
  commits: { alias: string; commit: string }[];
  savedBy: string;
  savedAt: string;
  lastUsedAt: string;
  hits: number;
  sizeBytes: number;
}

function entries(): Entry[] {
  if (!fs.existsSync(entriesFolder)) return [];
  return fs
    .readdirSync(entriesFolder)
    .map((key) => JSON.parse(fs.readFileSync(path.join(entriesFolder, key, "entry.json"), "utf8")) as Entry);
}

const entryOf = (modules: string[]) => entries().filter((entry) => entry.modules.join(",") === modules.join(","));
const keyIn = (log: string) => /\[install cache\] key ([0-9a-f]{64})/.exec(log)?.[1];

describe("runtime.install_cache (process driver)", { timeout: 120_000 }, () => {
  let first: BuildJson;

  it("installs and saves on a miss; a build of the same modules in another order restores instead", async () => {
    first = await build(["m_two", "m_one"]);
    expect(first.status).toBe("running");
    expect(installStage(first).cached).toBe(false);
    const firstLog = await installLog(first.build_id);
    expect(firstLog).toContain("miss: no entry of this key on this host; installing");
    expect(firstLog).toContain("install m_two m_one for build");
    expect(firstLog).toMatch(/saved entry [0-9a-f]{64} \(\d+ bytes\)/);
    const [entry] = entryOf(["m_one", "m_two"]);
    expect(entry).toMatchObject({
      key: keyIn(firstLog),
      savedBy: first.build_id,
      hits: 0,
      commits: [{ alias: "demo", commit: commitOf(first) }],
    });

    const second = await build(["m_one", "m_two"]);
    expect(second.status).toBe("running");
    expect(installStage(second).cached).toBe(true);
    const log = await installLog(second.build_id);
    expect(keyIn(log)).toBe(entry.key);
    expect(log).toContain(`hit: restoring entry ${entry.key}, saved by build ${first.build_id} at ${entry.savedAt}`);
    expect(log).toContain(`restored: database of m_two,m_one installed by build ${first.build_id}`);
    expect(log).not.toContain("install m_one m_two for build");
    expect(entryOf(["m_one", "m_two"])[0]).toMatchObject({ hits: 1, savedBy: first.build_id });

    // The console says so beside the stage, already in the first HTML.
    const stagesIn = async (buildId: string) => {
      const page = await builds.app.fetch(`/builds?build=${buildId}`, { headers: { Accept: "text/html" } });
      return (await page.text()).match(/data-testid="stage-cached"[^>]*>([^<]*)</g) ?? [];
    };
    expect(await stagesIn(second.build_id)).toEqual([expect.stringContaining(">from the cache<")]);
    expect(await stagesIn(first.build_id)).toEqual([]);
  });

  it("gives a build no way to write an entry: it is the server's and read-only", async () => {
    const restored = await build(["m_one", "m_two"]);
    expect(await installLog(restored.build_id)).toContain("entry is read-only");
    const [entry] = entryOf(["m_one", "m_two"]);
    const data = path.join(entriesFolder, entry.key, "data");
    expect(fs.readFileSync(path.join(data, "database.txt"), "utf8")).toBe(
      `database of m_two,m_one installed by build ${first.build_id}\n`,
    );
    expect(fs.existsSync(path.join(data, "planted"))).toBe(false);
    for (const file of [data, path.join(data, "database.txt")]) {
      expect(fs.statSync(file).mode & 0o222).toBe(0);
      if (asRoot) expect(fs.statSync(file).uid).toBe(0);
    }
  });

  it("hits after a commit that changes no installed module, and misses after one that changes a dependency", async () => {
    const [before] = entryOf(["m_one", "m_two"]);
    commit("addons/m_three/notes.txt", "not installed by this build\n");
    const unchanged = await build(["m_one", "m_two"]);
    expect(installStage(unchanged).cached).toBe(true);
    expect(keyIn(await installLog(unchanged.build_id))).toBe(before.key);

    commit("addons/m_one/data.xml", "<odoo>changed</odoo>\n");
    const changed = await build(["m_two", "m_one"]);
    expect(installStage(changed).cached).toBe(false);
    const log = await installLog(changed.build_id);
    expect(keyIn(log)).not.toBe(before.key);
    expect(log).toContain("miss: no entry of this key on this host; installing");
  });

  it("keeps no entry of a failing install or save, and falls back to a full install when a restore fails", async () => {
    fs.writeFileSync(path.join(controls, "fail-install"), "");
    const failedInstall = await build(["m_three"]);
    expect(failedInstall).toMatchObject({ status: "failed", failure_stage: "install" });
    expect(await installLog(failedInstall.build_id)).toContain("the install did not succeed: nothing is saved");
    expect(entryOf(["m_three"])).toEqual([]);

    fs.rmSync(path.join(controls, "fail-install"));
    fs.writeFileSync(path.join(controls, "fail-save"), "");
    const failedSave = await build(["m_three"]);
    // The preview works: only the entry is missing.
    expect(failedSave.status).toBe("running");
    expect(await installLog(failedSave.build_id)).toMatch(/the save failed \(.*code 5.*\): no entry is kept/);
    expect(entryOf(["m_three"])).toEqual([]);
    expect(fs.readdirSync(path.join(entriesFolder, "..", "incoming"))).toEqual([]);

    fs.rmSync(path.join(controls, "fail-save"));
    const saved = await build(["m_three"]);
    expect(entryOf(["m_three"])).toHaveLength(1);
    fs.writeFileSync(path.join(controls, "fail-restore"), "");
    const fellBack = await build(["m_three"]);
    expect(fellBack.status).toBe("running");
    expect(installStage(fellBack).cached).toBe(false);
    const log = await installLog(fellBack.build_id);
    expect(log).toContain(`saved by build ${saved.build_id}`);
    expect(log).toMatch(/the restore failed \(.*code 6.*\); falling back to a full install/);
    expect(log).toContain("install m_three for build");
    // The entry that failed to restore is replaced by this build's install.
    expect(entryOf(["m_three"])).toMatchObject([{ savedBy: fellBack.build_id }]);
  });

  it("installs once for two builds of one key at once: the second waits and restores", async () => {
    const posted = await Promise.all(
      [0, 1].map(async () => {
        const response = await builds.post({ repository: "demo", ref: "main", modules: ["pausing_install", "m_one"] });
        return ((await response.json()) as BuildJson).build_id;
      }),
    );
    const done = await Promise.all(posted.map((id) => builds.waitForStatus(id, ["running", "failed"])));
    expect(done.map((b) => b.status)).toEqual(["running", "running"]);
    const logs = await Promise.all(posted.map(installLog));
    expect(logs.filter((log) => log.includes("install over"))).toHaveLength(1);
    const waited = logs.find((log) => !log.includes("install over"))!;
    expect(waited).toContain("another build is installing or restoring the same key on this host: waiting for it");
    expect(waited).toContain("hit: restoring entry");
    expect(done.map((b) => installStage(b).cached).sort()).toEqual([false, true]);
  });

  it("lets the waiting build install itself when the first one's install fails", async () => {
    fs.writeFileSync(path.join(controls, "fail-next-install"), "");
    const posted = await Promise.all(
      [0, 1].map(async () => {
        const response = await builds.post({ repository: "demo", ref: "main", modules: ["pausing_install", "m_two"] });
        return ((await response.json()) as BuildJson).build_id;
      }),
    );
    const done = await Promise.all(posted.map((id) => builds.waitForStatus(id, ["running", "failed"])));
    expect(done.map((b) => b.status).sort()).toEqual(["failed", "running"]);
    const winner = done.find((b) => b.status === "running")!;
    const log = await installLog(winner.build_id);
    expect(log).toContain("waiting for it");
    expect(log).toContain("miss: no entry of this key on this host; installing");
    expect(entryOf(["m_one", "m_two", "pausing_install"])).toMatchObject([{ savedBy: winner.build_id }]);
  });

  it("evicts the least recently used entry past max_entries, and entries unused for max_age_days", async () => {
    await build(["base_mod"]);
    await build(["extra_mod"]);
    const hit = await build(["base_mod"]);
    expect(installStage(hit).cached).toBe(true);
    // Past max_entries (2): extra_mod, used longest ago, goes.
    const third = await build(["base_mod", "extra_mod"]);
    expect(await installLog(third.build_id)).toMatch(/evicted entry [0-9a-f]{64}/);
    expect(
      entries()
        .map((entry) => entry.modules.join(","))
        .sort(),
    ).toEqual(["base_mod", "base_mod,extra_mod"]);

    // An entry last used 31 days ago goes at the next install stage, though the count is within bounds.
    const [old] = entryOf(["base_mod"]);
    const file = path.join(entriesFolder, old.key, "entry.json");
    const lastUsedAt = new Date(Date.now() - 31 * 86_400_000).toISOString();
    fs.writeFileSync(file, JSON.stringify({ ...old, lastUsedAt }));
    const again = await build(["base_mod", "extra_mod"]);
    expect(installStage(again).cached).toBe(true);
    expect(await installLog(again.build_id)).toContain(`evicted entry ${old.key}`);
    expect(entries().map((entry) => entry.modules.join(","))).toEqual(["base_mod,extra_mod"]);
  });
});

describe("the install cache's operators", { timeout: 120_000 }, () => {
  let user: Record<string, string>;
  beforeAll(async () => {
    user = (await registerAndGetToken(builds.app)).authorization;
  });
  const admin = () => builds.authorization;
  const listCache = (headers: Record<string, string>) => builds.app.fetch("/builds/cache", { headers });
  const dropEntry = (key: string, headers: Record<string, string>) =>
    builds.app.fetch(`/builds/cache/${key}`, { method: "DELETE", headers });
  const rebuild = (buildId: string, body?: string) =>
    builds.app.fetch(`/builds/${buildId}/rebuild`, {
      method: "POST",
      headers: { ...admin(), ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
      body,
    });

  it("GET /builds/cache lists this host's entries to admins only", async () => {
    expect((await listCache({})).status).toBe(401);
    const forbidden = await listCache(user);
    expect(forbidden.status).toBe(403);
    expect(forbidden.headers.get("content-type")).toContain("application/problem+json");
    const response = await listCache(admin());
    expect(response.status).toBe(200);
    const listed = (await response.json()) as {
      host: string;
      max_entries: number;
      max_age_days: number;
      entries: Record<string, unknown>[];
    };
    expect(listed).toMatchObject({ max_entries: 2, max_age_days: 30 });
    expect(typeof listed.host).toBe("string");
    const onDisk = entries().sort((a, b) => b.lastUsedAt.localeCompare(a.lastUsedAt));
    expect(listed.entries).toEqual(
      onDisk.map((entry) => ({
        key: entry.key,
        modules: entry.modules,
        commits: entry.commits.map((c) => ({ repository: c.alias, commit_sha: c.commit })),
        size_bytes: entry.sizeBytes,
        saved_by: entry.savedBy,
        saved_at: entry.savedAt,
        last_used_at: entry.lastUsedAt,
        hits: entry.hits,
      })),
    );
    expect(listed.entries.length).toBeGreaterThan(0);
    expect(listed.entries[0].size_bytes).toBeGreaterThan(0);
  });

  it("counts hits and misses in /metrics", async () => {
    const text = await (
      await builds.app.fetch("/metrics", { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } })
    ).text();
    const count = (outcome: string) =>
      Number(
        new RegExp(`^build_install_cache_lookups_total\\{[^}]*outcome="${outcome}"[^}]*\\} (\\d+)`, "m").exec(
          text,
        )?.[1],
      );
    // So far in this file: hits of the first, second, third and eviction tests; misses of every install.
    expect(count("hit")).toBeGreaterThanOrEqual(6);
    expect(count("miss")).toBeGreaterThanOrEqual(8);
  });

  it("POST /builds/{id}/rebuild with install_cache false installs afresh and replaces the entry", async () => {
    const original = await build(["m_three", "m_one"]);
    const keyOfBuild = keyIn(await installLog(original.build_id))!;
    const restored = await rebuild(original.build_id);
    expect(restored.status).toBe(202);
    const restoredBuild = await builds.waitForStatus(((await restored.json()) as BuildJson).build_id, ["running"]);
    expect(installStage(restoredBuild).cached).toBe(true);

    expect((await rebuild(original.build_id, JSON.stringify({ install_cache: "no" }))).status).toBe(400);
    expect((await rebuild(original.build_id, JSON.stringify({ install_cache: false, extra: 1 }))).status).toBe(400);
    const fresh = await rebuild(original.build_id, JSON.stringify({ install_cache: false }));
    expect(fresh.status).toBe(202);
    const freshBuild = await builds.waitForStatus(((await fresh.json()) as BuildJson).build_id, ["running"]);
    expect(installStage(freshBuild).cached).toBe(false);
    const log = await installLog(freshBuild.build_id);
    expect(log).toContain("not used: this build asked for a fresh install");
    expect(log).toContain("install m_three m_one for build");
    expect(entries().find((entry) => entry.key === keyOfBuild)).toMatchObject({
      savedBy: freshBuild.build_id,
      hits: 0,
    });
  });

  it("DELETE /builds/cache/{key} drops an entry for admins; the next build of its key installs", async () => {
    const [entry] = entryOf(["m_one", "m_three"]);
    expect((await dropEntry(entry.key, {})).status).toBe(401);
    expect((await dropEntry(entry.key, user)).status).toBe(403);
    const malformed = await dropEntry("not-a-key", admin());
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as { errors: { field: string }[] }).errors[0].field).toBe("path.key");
    expect((await dropEntry("0".repeat(64), admin())).status).toBe(404);
    expect((await dropEntry(entry.key, admin())).status).toBe(204);
    expect(fs.existsSync(path.join(entriesFolder, entry.key))).toBe(false);
    const listed = (await (await listCache(admin())).json()) as { entries: { key: string }[] };
    expect(listed.entries.map((e) => e.key)).not.toContain(entry.key);
    expect((await dropEntry(entry.key, admin())).status).toBe(404);
    const next = await build(["m_one", "m_three"]);
    expect(installStage(next).cached).toBe(false);
    expect(await installLog(next.build_id)).toContain("miss: no entry of this key on this host");
  });
});
