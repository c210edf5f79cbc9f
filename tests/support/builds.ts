import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "vitest";
import { type AppServer, startAppServer } from "./app-server";
import { registerAndGetToken } from "./users";

/**
 * A real git repository in a temp folder, with modules and stage scripts, and a builds configuration that
 * points at it. The stage scripts print `pid=<n>` for every process they start, so that tests can check,
 * through the logs, that nothing a build started is left alive. Their behaviour follows the requested modules
 * (the only request value a stage sees, through MODULES):
 * - `slow_install`: install starts a child and waits for a minute (to cancel it, or to time it out);
 * - `chatty`: install prints 250,000 bytes, 100 characters a line;
 * - `broken`: the test stage fails with exit code 3.
 */
export interface BuildsFixture {
  root: string;
  repository: string;
  buildsRoot: string;
  configFile: string;
  ports: { start: number; end: number };
}

const STAGE_SCRIPTS: Record<string, string> = {
  "stages/install.mjs": `
import { spawn } from "node:child_process";
const modules = process.env.MODULES.split(",");
console.log("pid=" + process.pid);
console.log("install " + modules.join(" ") + " for build " + process.env.BUILD_ID + " on port " + process.env.PORT);
console.log("addons " + process.env.ADDONS_PATH);
if (modules.includes("chatty")) {
  for (let line = 0; line < 2500; line++) console.log(String(line).padStart(8, "0") + " " + "x".repeat(91));
}
if (modules.includes("slow_install")) {
  const child = spawn("sleep", ["60"], { stdio: "ignore" });
  console.log("pid=" + child.pid);
  console.log("waiting");
  setTimeout(() => {}, 60_000);
}
// A module a test adds (makeBuildsFixture's moreModules) to have the install end a few seconds after it began.
if (modules.includes("pausing_install")) {
  await new Promise((resolve) => setTimeout(resolve, 3000));
  console.log("install over");
}
`,
  "stages/test.mjs": `
console.log("pid=" + process.pid);
if (process.env.MODULES.split(",").includes("broken")) {
  console.error("the broken module fails its tests");
  process.exit(3);
}
console.log("tests passed");
`,
  "stages/server.mjs": `
import http from "node:http";
console.log("pid=" + process.pid);
const server = http.createServer((request, response) => {
  response.end("build " + process.env.BUILD_ID + " modules " + process.env.MODULES);
});
// A module a test adds (makeBuildsFixture's moreModules) to have the start stage end a few seconds after it began.
const pause = process.env.MODULES.split(",").includes("pausing_start") ? 3000 : 0;
setTimeout(() => {
  server.listen(Number(process.env.PORT), "127.0.0.1", () => console.log("listening on " + process.env.PORT));
}, pause);
`,
};

const MODULES = ["base_mod", "extra_mod", "slow_install", "chatty", "broken"];

function git(cwd: string, ...args: string[]) {
  return execFileSync("git", ["-c", "user.name=Test", "-c", "user.email=test@example.com", ...args], {
    cwd,
    encoding: "utf8",
  }).trim();
}

/** Makes the repository (branch main, plus `feature` with one more module) and a configuration for it. */
export function makeBuildsFixture(
  config: (fixture: Omit<BuildsFixture, "configFile">) => string,
  moreModules: string[] = [],
): BuildsFixture {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "builds-test-"));
  // Stages run as uids of runtime.run_as_uids when the tests run as root: that user must reach the builds below.
  fs.chmodSync(root, 0o755);
  const repository = path.join(root, "repo");
  fs.mkdirSync(repository);
  for (const [file, content] of Object.entries(STAGE_SCRIPTS)) {
    fs.mkdirSync(path.dirname(path.join(repository, file)), { recursive: true });
    fs.writeFileSync(path.join(repository, file), content);
  }
  for (const name of [...MODULES, ...moreModules]) writeModule(repository, name);
  // A folder without a manifest is not a module.
  fs.mkdirSync(path.join(repository, "addons", "not_a_module"));
  fs.writeFileSync(path.join(repository, "addons", "not_a_module", "README"), "no manifest here\n");
  git(repository, "init", "--quiet", "-b", "main");
  git(repository, "add", ".");
  git(repository, "commit", "--quiet", "-m", "modules and stages");
  git(repository, "checkout", "--quiet", "-b", "feature");
  writeModule(repository, "feature_mod");
  git(repository, "add", ".");
  git(repository, "commit", "--quiet", "-m", "a feature module");
  git(repository, "checkout", "--quiet", "main");
  const start = claimPortBlock(root);
  const partial = { root, repository, buildsRoot: path.join(root, "builds"), ports: { start, end: start + 49 } };
  const configFile = path.join(root, "builds.config.yaml");
  fs.writeFileSync(configFile, config(partial));
  return { ...partial, configFile };
}

/**
 * Ports (and with them run_as_uids, fixtureUids) of a fixture's own, so that parallel files never race for
 * one: blocks of 60 (50, and 10 for a second host in tests/support/cluster.ts) below Linux's ephemeral ports
 * (32768 up), which any loopback connection of the run may hold. A block is claimed by a file created
 * exclusively, in a folder every test process of the machine shares: picked at random, two fixtures alive at
 * once drew the same block now and then, and one's destroy (kill -1 as the build's uid) ended the other's
 * builds. A claim lapses with its fixture's folder or with the process that made it.
 */
function claimPortBlock(root: string): number {
  const claims = path.join(os.tmpdir(), "builds-test-port-blocks");
  fs.mkdirSync(claims, { recursive: true });
  for (let attempt = 0; attempt < 2000; attempt++) {
    const block = Math.floor(Math.random() * 212);
    const claim = path.join(claims, String(block));
    try {
      fs.writeFileSync(claim, JSON.stringify({ pid: process.pid, root }), { flag: "wx" });
      return 20000 + block * 60;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    if (claimHasLapsed(claim)) fs.rmSync(claim, { force: true });
  }
  throw new Error(`every block of test ports is claimed: see ${claims}`);
}

function claimHasLapsed(claim: string): boolean {
  try {
    const { pid, root } = JSON.parse(fs.readFileSync(claim, "utf8")) as { pid: number; root: string };
    return !fs.existsSync(root) || !isProcessAlive(pid);
  } catch {
    // Half-written: being written by its claimer this very moment, or left so by a crash a while ago.
    const written = fs.statSync(claim, { throwIfNoEntry: false })?.mtimeMs;
    return written !== undefined && Date.now() - written > 60_000;
  }
}

function writeModule(repository: string, name: string) {
  fs.mkdirSync(path.join(repository, "addons", name), { recursive: true });
  fs.writeFileSync(path.join(repository, "addons", name, "manifest.json"), JSON.stringify({ name }));
}

/** The YAML of a configuration for the fixture; `extra` lines are appended at the top level. */
export function fixtureConfig(
  fixture: Omit<BuildsFixture, "configFile">,
  options: {
    maxConcurrent?: number;
    maxQueued?: number;
    ttl?: string;
    stageTimeout?: number;
    extraRepositories?: string;
  } = {},
): string {
  return `
builds_root: ${fixture.buildsRoot}
max_concurrent_builds: ${options.maxConcurrent ?? 2}
max_queued_builds: ${options.maxQueued ?? 50}
ttl: ${options.ttl ?? "{ default_seconds: 3600, min_seconds: 60, max_seconds: 86400, choices: [3600] }"}
ports: { start: ${fixture.ports.start}, end: ${fixture.ports.end} }
stage_timeout_seconds: ${options.stageTimeout ?? 60}
reaper_interval_seconds: 0.5
runtime:
  driver: process
  run_as_uids: ${JSON.stringify(fixtureUids(fixture.ports))}
  install: node stages/install.mjs
  test: node stages/test.mjs
  start: node stages/server.mjs
  healthcheck: { path: "/", timeout_seconds: 20 }
repositories:
  - alias: demo
    url: ./repo
    default_ref: main
    modules_path: addons
    module_manifest: manifest.json
${options.extraRepositories ?? ""}
`;
}

/**
 * Build uids of a test server's own (runtime.run_as_uids), as its ports are: servers of parallel test files
 * (and of other suites on the same machine) must never lease one uid to two builds, or one's destroy would end
 * the other's processes. Apart from the default range, which a server started by hand uses.
 */
export function fixtureUids(ports: { start: number; end: number }): { start: number; end: number } {
  const start = 1_910_000_000 + ports.start;
  return { start, end: start + (ports.end - ports.start) };
}

export interface BuildsApp {
  app: AppServer;
  fixture: BuildsFixture;
  authorization: Record<string, string>;
  post(body: unknown): Promise<Response>;
  get(pathname: string, init?: RequestInit): Promise<Response>;
  waitForStatus(buildId: string, statuses: string[], timeoutMs?: number): Promise<BuildJson>;
}

export type BuildJson = {
  build_id: string;
  status: string;
  preview_url: string | null;
  failure_stage: string | null;
  failure_message: string | null;
  queue_position: number | null;
  stages: { name: string; status: string; exit_code: number | null; duration_ms: number | null; cached?: boolean }[];
  [key: string]: unknown;
};

const ENDED = ["failed", "canceled", "expired", "destroyed"];

export async function startBuildsApp(fixture: BuildsFixture, env: Record<string, string> = {}): Promise<BuildsApp> {
  const app = await startAppServer({ BUILDS_CONFIG: fixture.configFile, ...env });
  return connectBuildsApp(app, fixture, (await registerAndGetToken(app)).authorization);
}

export function connectBuildsApp(
  app: AppServer,
  fixture: BuildsFixture,
  authorization: Record<string, string>,
): BuildsApp {
  return {
    app,
    fixture,
    authorization,
    post: (body) =>
      app.fetch("/builds", {
        method: "POST",
        headers: { ...authorization, "Content-Type": "application/json" },
        body: typeof body === "string" ? body : JSON.stringify(body),
      }),
    get: (pathname, init) => app.fetch(pathname, init),
    async waitForStatus(buildId, statuses, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      let last: BuildJson | undefined;
      while (Date.now() < deadline) {
        // Signed in: a private repository's build is hidden from strangers.
        last = (await (await app.fetch(`/builds/${buildId}`, { headers: authorization })).json()) as BuildJson;
        // A build that ends changes its status first, then closes its open stages once its runtime is destroyed.
        const settled =
          !ENDED.includes(last.status) ||
          last.stages.every((stage) => stage.status !== "pending" && stage.status !== "running");
        if (statuses.includes(last.status) && settled) return last;
        await new Promise((resolve) => setTimeout(resolve, 150));
      }
      throw new Error(`build ${buildId} did not reach ${statuses.join("|")}; last: ${JSON.stringify(last)}`);
    },
  };
}

/** Every pid that a build's stages printed into its logs. */
export async function pidsOfBuild(builds: BuildsApp, buildId: string): Promise<number[]> {
  const log = (await (await builds.get(`/builds/${buildId}/logs`, { headers: builds.authorization })).json()) as {
    content: string;
  };
  return [...log.content.matchAll(/^pid=(\d+)$/gm)].map((match) => Number(match[1]));
}

/** Whether a process is alive (a zombie is not). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

/** Waits (a little: killing takes a moment) until none of the pids is alive. */
export async function expectAllDead(pids: number[], timeoutMs = 12_000) {
  const deadline = Date.now() + timeoutMs;
  while (pids.some(isProcessAlive) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  expect(pids.filter(isProcessAlive)).toEqual([]);
}

/**
 * The end of every builds test file: cancels or destroys every build through the API, checks that no process
 * a build started is still alive, then stops the server and removes the temp folders.
 */
export async function tearDownBuilds(builds: BuildsApp | undefined) {
  if (!builds) return;
  try {
    const listed = await builds.get("/builds?limit=100", { headers: builds.authorization });
    const { builds: list } = (await listed.json()) as { builds: BuildJson[] };
    const pids: number[] = [];
    for (const build of list) {
      const action = ["queued", "checking_out", "installing", "testing", "starting"].includes(build.status)
        ? builds.app.fetch(`/builds/${build.build_id}/cancel`, { method: "POST", headers: builds.authorization })
        : builds.app.fetch(`/builds/${build.build_id}`, { method: "DELETE", headers: builds.authorization });
      await action;
      pids.push(...(await pidsOfBuild(builds, build.build_id)));
    }
    await expectAllDead(pids);
  } finally {
    await builds.app.stop();
    fs.rmSync(builds.fixture.root, { recursive: true, force: true });
  }
}
