import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  type BuildJson,
  type BuildsApp,
  fixtureConfig,
  fixtureUids,
  makeBuildsFixture,
  startBuildsApp,
  tearDownBuilds,
} from "../support/builds";

// Only root can run stages as another user; CI runs as root. Elsewhere stages run as the server's user.
const asRoot = process.getuid?.() === 0;
const projectRoot = path.resolve(import.meta.dirname, "..", "..");
const mode = (file: string) => (fs.statSync(file).mode & 0o777).toString(8);

/**
 * `npm start`'s preparation step, awaited without blocking this process: a synchronous wait would keep the
 * test's idle connections to the server from noticing that the server closed them.
 */
function prepareStart(env: Record<string, string>): Promise<{ status: number; stderr: string }> {
  return new Promise((resolve) => {
    const tsx = path.join(projectRoot, "node_modules", ".bin", "tsx");
    execFile(
      tsx,
      ["scripts/prepare-start.ts"],
      { cwd: projectRoot, env: { ...process.env, ...env } },
      (error, _stdout, stderr) =>
        resolve({ status: error ? Number((error as { code?: number }).code ?? 1) : 0, stderr }),
    );
  });
}

let builds: BuildsApp;
let dataDir: string;
beforeAll(async () => {
  if (!asRoot) return;
  // A data folder as an older version left it: open to all, the database 0644.
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "run-as-data-"));
  fs.chmodSync(dataDir, 0o755);
  const databaseFile = path.join(dataDir, "app.db");
  fs.copyFileSync(inject("templateDatabase"), databaseFile);
  fs.chmodSync(databaseFile, 0o644);
  const secret = path.join(dataDir, "nextauth-secret");
  const probe = [
    "id -u",
    `cat ${secret} && echo secret-was-read || echo secret-denied`,
    `cat ${databaseFile} >/dev/null && echo database-was-read || echo database-denied`,
    `ls ${dataDir} >/dev/null && echo folder-was-listed || echo folder-denied`,
    // The stage's parent is its log writer, whose parent is the server.
    `kill -0 $(cut -d' ' -f4 /proc/$PPID/stat) 2>/dev/null && echo server-was-signalled || echo signal-denied`,
    `touch "$HOME/home-is-writable" && echo home-ok`,
  ].join("; ");
  const fixture = makeBuildsFixture((partial) =>
    fixtureConfig(partial).replace("install: node stages/install.mjs", `install: ${JSON.stringify(probe)}`),
  );
  builds = await startBuildsApp(fixture, { DATABASE_URL: `file:${databaseFile}` });
});
afterAll(async () => {
  await tearDownBuilds(builds);
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

// Concurrent: each test reads on its own (a build, the data folder's modes, its own `npm start` folder). Three
// start tsx beside each other: two minutes each, for a loaded machine.
const sideBySide = { concurrent: true, timeout: 120_000 };
describe.skipIf(!asRoot)("process driver stages, with the server running as root", sideBySide, () => {
  it("run as a uid of runtime.run_as_uids and cannot read the secret, the database or the data folder, nor signal the server", async () => {
    const created = (await (
      await builds.post({ repository: "demo", ref: "main", modules: ["base_mod"] })
    ).json()) as BuildJson;
    const build = await builds.waitForStatus(created.build_id, ["running", "failed"]);
    expect(build.status).toBe("running");
    const log = (await (await builds.get(`/builds/${build.build_id}/logs?stage=install`)).json()).content as string;
    const secret = fs.readFileSync(path.join(dataDir, "nextauth-secret"), "utf8").trim();
    const uid = Number(log.split("\n")[0]);
    expect(uid).toBeGreaterThanOrEqual(fixtureUids(builds.fixture.ports).start);
    expect(uid).toBeLessThanOrEqual(fixtureUids(builds.fixture.ports).end);
    expect(log).toContain("secret-denied");
    expect(log).toContain("database-denied");
    expect(log).toContain("folder-denied");
    expect(log).toContain("signal-denied");
    expect(log).toContain("home-ok");
    expect(log).not.toContain(secret);
    expect(log).not.toMatch(/was-read|was-listed|was-signalled/);
    // The workspace the stages work in is theirs; the logs stay the server's.
    const workspace = path.join(builds.fixture.buildsRoot, build.build_id);
    expect(fs.statSync(path.join(workspace, "sources", "demo", "stages", "install.mjs")).uid).toBe(uid);
    for (const folder of ["sources", "runtime"])
      expect([folder, mode(path.join(workspace, folder))]).toEqual([folder, "700"]);
    expect(fs.statSync(path.join(workspace, "logs", "install.log")).uid).toBe(0);
  });

  it("keeps the data folder 0700 and the database, its -wal and -shm and the secret 0600", () => {
    expect(mode(dataDir)).toBe("700");
    for (const name of ["app.db", "app.db-wal", "app.db-shm", "nextauth-secret"]) {
      const file = path.join(dataDir, name);
      if (name === "app.db" || name === "nextauth-secret" || fs.existsSync(file))
        expect([name, mode(file)]).toEqual([name, "600"]);
    }
  });

  it("npm start stops with a message when builds_root is inside the data folder", async () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), "run-as-start-"));
    try {
      const config = path.join(folder, "builds.config.yaml");
      fs.writeFileSync(config, "builds_root: ./data/builds\n");
      const result = await prepareStart({
        DATABASE_URL: `file:${path.join(folder, "data", "app.db")}`,
        BUILDS_CONFIG: config,
      });
      expect(result.status).toBe(1);
      expect(result.stderr).toMatch(
        /builds\.config\.yaml: builds_root: .* is inside the data folder .*runtime\.run_as_uids/,
      );
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it("npm start stops with a message when a user of the machine has a uid of runtime.run_as_uids", async () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), "run-as-start-"));
    try {
      const config = path.join(folder, "builds.config.yaml");
      // nobody is 65534.
      fs.writeFileSync(config, "runtime: { run_as_uids: { start: 65000, end: 65535 } }\n");
      const result = await prepareStart({
        DATABASE_URL: `file:${path.join(folder, "data", "app.db")}`,
        BUILDS_CONFIG: config,
      });
      expect(result.status).toBe(1);
      expect(result.stderr).toMatch(
        /runtime\.run_as_uids: 65000-65535 holds the uid of nobody \(65534\).*choose a range that no user has/,
      );
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it("npm start warns when the stage user cannot enter a folder above builds_root", async () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), "run-as-start-"));
    try {
      const config = path.join(folder, "builds.config.yaml");
      fs.mkdirSync(path.join(folder, "private"), { mode: 0o700 });
      fs.writeFileSync(config, "builds_root: ./private/builds\n");
      const result = await prepareStart({
        DATABASE_URL: `file:${path.join(folder, "data", "app.db")}`,
        BUILDS_CONFIG: config,
      });
      expect(result.status).toBe(0);
      expect(result.stderr).toMatch(
        /builds_root: builds \(runtime\.run_as_uids\) cannot enter .*private, so stages will fail/,
      );
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });
});
