import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAppServer } from "../support/app-server";
import {
  type BuildJson,
  type BuildsApp,
  connectBuildsApp,
  expectAllDead,
  fixtureConfig,
  isProcessAlive,
  makeBuildsFixture,
  startBuildsApp,
  tearDownBuilds,
} from "../support/builds";

// A hostile branch's stages (process driver, server as root) try to make root
// delete files of their choosing, to outlive their build (cancel, DELETE, expiry, a crash and restart), and to
// reach other builds and the mirrors.
const asRoot = process.getuid?.() === 0;

// The files of a root-only folder outside builds_root, named as a database and a secret would be.
const VICTIM_FILES = ["app.db", "app.db-wal", "nextauth-secret", ...Array.from({ length: 30 }, (_, i) => `file${i}`)];

// Swaps folders with symlinks to the victim as fast as it can (python3's renameat2 where there is one).
const SWAPPERS = path.resolve(import.meta.dirname, "..", "fixtures", "hostile-builds");

/**
 * The stages of the hostile branch: `sh hostile.sh install|start`, then the fixture's own stage script. What
 * they try follows the requested modules (the only request value a stage sees, through MODULES).
 */
function hostileScript(root: string, victim: string): string {
  return `
has() { case ",$MODULES," in *",$1,"*) return 0 ;; esac; return 1; }
echo "uid=$(id -u)"
if has detach; then
  # Out of the stage's process group: setsid, a double fork, env -i setsid, a double fork then setsid.
  setsid /bin/sleep 301 </dev/null >/dev/null 2>&1 &
  echo "detached=$!"
  /bin/sh -c '/bin/sh -c "echo detached=\\$\\$; exec /bin/sleep 302 </dev/null >/dev/null 2>&1" &'
  env -i /usr/bin/setsid /bin/sh -c 'echo "detached=$$"; exec /bin/sleep 303 </dev/null >/dev/null 2>&1' &
  /bin/sh -c 'setsid /bin/sh -c "echo detached=\\$\\$; exec /bin/sleep 304 </dev/null >/dev/null 2>&1" &'
  sleep 0.5
fi
if has swap; then
  for base in "$HOME/swap" "$PWD/swap"; do
    if [ -x /usr/bin/python3 ]; then
      setsid /usr/bin/python3 ${root}/swapper.py "$base" ${victim} ${VICTIM_FILES.join(",")} </dev/null >/dev/null 2>&1 &
    else
      setsid node ${root}/swapper.mjs "$base" ${victim} ${VICTIM_FILES.join(",")} </dev/null >/dev/null 2>&1 &
    fi
    echo "swapper=$!"
  done
  sleep 1
fi
if has probe; then
  . ${root}/targets.sh
  touch "$OTHER_SOURCES/demo/written-by-another-build" 2>/dev/null && echo probe-wrote-other || echo probe-write-denied
  ls "$OTHER_SOURCES/demo" >/dev/null 2>&1 && echo probe-listed-other || echo probe-list-denied
  kill -TERM "$OTHER_PREVIEW_PID" 2>/dev/null && echo probe-signalled-other || echo probe-signal-denied
  cat "$MIRROR/HEAD" >/dev/null 2>&1 && echo probe-read-mirror || echo probe-mirror-denied
  git clone --quiet "$MIRROR" "$HOME/stolen" >/dev/null 2>&1 && echo probe-cloned-mirror || echo probe-clone-denied
  # Its own checkout's object files: were they the mirror's (hard links), this would corrupt the mirror.
  find .git/objects -type f | while read -r object; do
    chmod u+w "$object" && printf corrupt | dd of="$object" conv=notrunc 2>/dev/null
  done
fi
`;
}

/** The live processes whose real, effective, saved or file-system uid is `uid`. */
function processesOfUid(uid: number): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const status = fs.readFileSync(`/proc/${entry}/status`, "utf8");
      const uids = /^Uid:\s+(.*)$/m.exec(status)?.[1].split(/\s+/).map(Number) ?? [];
      if (uids.includes(uid) && !/^State:\s+Z/m.test(status)) pids.push(Number(entry));
    } catch {
      /* gone meanwhile */
    }
  }
  return pids;
}

let builds: BuildsApp;
// The server the restart test crashed: its data folder holds the database the restarted one uses, so it goes last.
let crashed: BuildsApp | undefined;
let victim: string;
let mirror: string;
beforeAll(async () => {
  if (!asRoot) return;
  const fixture = makeBuildsFixture(
    (partial) => {
      const script = path.join(partial.root, "hostile.sh");
      // A time to live of a few seconds is allowed, for the expiry test.
      return fixtureConfig(partial, {
        maxConcurrent: 3,
        ttl: "{ default_seconds: 3600, min_seconds: 1, max_seconds: 86400, choices: [3600] }",
      })
        .replace("install: node stages/install.mjs", `install: sh ${script} install && exec node stages/install.mjs`)
        .replace("start: node stages/server.mjs", `start: sh ${script} start && exec node stages/server.mjs`);
    },
    ["detach", "swap", "probe"],
  );
  victim = path.join(fixture.root, "victim");
  fs.mkdirSync(victim, { mode: 0o700 });
  for (const name of VICTIM_FILES) fs.writeFileSync(path.join(victim, name), `${name} must survive\n`, { mode: 0o600 });
  fs.writeFileSync(path.join(fixture.root, "hostile.sh"), hostileScript(fixture.root, victim), { mode: 0o644 });
  // Copied where the builds' uids can read them.
  for (const name of ["swapper.py", "swapper.mjs"])
    fs.copyFileSync(path.join(SWAPPERS, name), path.join(fixture.root, name));
  mirror = path.join(fixture.buildsRoot, ".mirrors", "demo.git");
  builds = await startBuildsApp(fixture);
});
afterAll(async () => {
  try {
    await tearDownBuilds(builds);
  } finally {
    await crashed?.app.stop();
  }
});

async function startBuild(modules: string[], ttlSeconds?: number): Promise<BuildJson> {
  const response = await builds.post({ repositories: [{ repository: "demo" }], modules, ttl_seconds: ttlSeconds });
  expect(response.status).toBe(202);
  return (await response.json()) as BuildJson;
}

async function stageLog(buildId: string, stage: string): Promise<string> {
  return ((await (await builds.get(`/builds/${buildId}/logs?stage=${stage}`)).json()) as { content: string }).content;
}

async function waitForLog(buildId: string, stage: string, text: string): Promise<string> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const log = await stageLog(buildId, stage);
    if (log.includes(text)) return log;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the ${stage} log of ${buildId} never showed ${text}`);
}

const values = (log: string, name: string) =>
  [...log.matchAll(new RegExp(`^${name}=(\\d+)$`, "gm"))].map((match) => Number(match[1]));
const uidOf = (log: string) => values(log, "uid")[0];
const destroy = (buildId: string) =>
  builds.app.fetch(`/builds/${buildId}`, { method: "DELETE", headers: builds.authorization });
const cancel = (buildId: string) =>
  builds.app.fetch(`/builds/${buildId}/cancel`, { method: "POST", headers: builds.authorization });

describe.skipIf(!asRoot)("a hostile build (process driver, server as root)", () => {
  it("cancel ends every process of the build, also those started with setsid, a double fork or env -i setsid", async () => {
    const build = await startBuild(["base_mod", "detach", "slow_install"]);
    const log = await waitForLog(build.build_id, "install", "waiting");
    const detached = values(log, "detached");
    expect(detached).toHaveLength(4);
    expect(detached.every(isProcessAlive)).toBe(true);
    const uid = uidOf(log);

    const response = await cancel(build.build_id);
    expect(response.status, await response.clone().text()).toBe(200);
    expect((await response.json()).status).toBe("canceled");
    // The cancel answers once the build's processes are gone.
    await expectAllDead(detached, 2_000);
    expect(processesOfUid(uid)).toEqual([]);
  });

  it("DELETE ends every process of a running build, however its stages detached them", async () => {
    const build = await startBuild(["base_mod", "detach"]);
    expect((await builds.waitForStatus(build.build_id, ["running", "failed"])).status).toBe("running");
    const install = await stageLog(build.build_id, "install");
    const start = await waitForLog(build.build_id, "start", "listening");
    expect([...values(install, "detached"), ...values(start, "detached")]).toHaveLength(8);
    // The end of the install stage stopped its process group, with the double fork that stayed in it.
    const detached = [...values(install, "detached"), ...values(start, "detached")].filter(isProcessAlive);
    expect(detached).toHaveLength(7);
    const uid = uidOf(install);

    const response = await destroy(build.build_id);
    expect(response.status, await response.clone().text()).toBe(200);
    expect((await response.json()).status).toBe("destroyed");
    await expectAllDead(detached, 2_000);
    expect(processesOfUid(uid)).toEqual([]);
  });

  it("expiry ends every process of the build, however its stages detached them", async () => {
    const build = await startBuild(["base_mod", "detach"], 5);
    expect((await builds.waitForStatus(build.build_id, ["running", "failed"])).status).toBe("running");
    const install = await stageLog(build.build_id, "install");
    const start = await waitForLog(build.build_id, "start", "listening");
    // The end of the install stage stopped its process group, with the double fork that stayed in it.
    const detached = [...values(install, "detached"), ...values(start, "detached")].filter(isProcessAlive);
    expect(detached).toHaveLength(7);
    const uid = uidOf(install);

    // The reaper expires it: no request of anyone's ends its processes. It marks the build expired first, then
    // destroys its runtime, ending the processes of its uid (each given up to 15 s: lib/builds/runtime/processes.ts).
    expect((await builds.waitForStatus(build.build_id, ["expired"], 60_000)).status).toBe("expired");
    await expectAllDead(detached, 15_000);
    await expect.poll(() => processesOfUid(uid), { timeout: 15_000 }).toEqual([]);
  });

  it("DELETE, while the build swaps its folders with symlinks to a root-only folder, deletes nothing of that folder", async () => {
    // Two builds: each DELETE is one chance for a removal that follows links to lose the race.
    for (const round of [1, 2]) {
      const build = await startBuild(["base_mod", "swap"]);
      expect((await builds.waitForStatus(build.build_id, ["running", "failed"])).status).toBe("running");
      const log = await stageLog(build.build_id, "install");
      const swappers = values(log, "swapper");
      expect(swappers).toHaveLength(2);
      expect(swappers.every(isProcessAlive)).toBe(true);
      const workspace = path.join(builds.fixture.buildsRoot, build.build_id);
      expect(fs.readdirSync(path.join(workspace, "runtime", "swap"))).toHaveLength(20);

      const response = await destroy(build.build_id);
      expect(response.status, await response.clone().text()).toBe(200);
      expect([round, fs.readdirSync(victim).sort()]).toEqual([round, [...VICTIM_FILES].sort()]);
      for (const name of VICTIM_FILES)
        expect(fs.readFileSync(path.join(victim, name), "utf8")).toBe(`${name} must survive\n`);
      await expectAllDead(swappers, 2_000);
      expect(fs.existsSync(path.join(workspace, "sources"))).toBe(false);
      expect(fs.existsSync(path.join(workspace, "runtime"))).toBe(false);
      expect(fs.existsSync(path.join(workspace, "logs", "install.log"))).toBe(true);
    }
  });

  it("a build cannot write into another build's checkout, signal its preview, or read or change a mirror", async () => {
    const other = await startBuild(["base_mod"]);
    const running = await builds.waitForStatus(other.build_id, ["running", "failed"]);
    expect(running.status).toBe("running");
    const otherUid = uidOf(await stageLog(other.build_id, "install"));
    const [otherPreviewPid] = values(await waitForLog(other.build_id, "start", "listening"), "pid");
    const otherSources = path.join(builds.fixture.buildsRoot, other.build_id, "sources");
    fs.writeFileSync(
      path.join(builds.fixture.root, "targets.sh"),
      `OTHER_SOURCES=${otherSources}\nOTHER_PREVIEW_PID=${otherPreviewPid}\nMIRROR=${mirror}\n`,
      { mode: 0o644 },
    );

    const hostile = await startBuild(["base_mod", "probe"]);
    expect((await builds.waitForStatus(hostile.build_id, ["running", "failed"])).status).toBe("running");
    const log = await stageLog(hostile.build_id, "install");
    expect(uidOf(log)).not.toBe(otherUid);
    for (const line of [
      "probe-write-denied",
      "probe-list-denied",
      "probe-signal-denied",
      "probe-mirror-denied",
      "probe-clone-denied",
    ]) {
      expect(log).toContain(line);
    }
    expect(log).not.toMatch(/probe-(wrote|listed|signalled|read|cloned)/);

    // The other build is untouched: its preview still answers, its checkout has no stranger's file.
    expect(isProcessAlive(otherPreviewPid)).toBe(true);
    expect((await builds.get(`/builds/${other.build_id}`).then((response) => response.json())).status).toBe("running");
    expect(await (await fetch(running.preview_url!)).text()).toContain(`build ${other.build_id}`);
    expect(fs.existsSync(path.join(otherSources, "demo", "written-by-another-build"))).toBe(false);
    // The mirror is root's alone, shares no file with a checkout, and is intact.
    const owners = execFileSync("find", [mirror, "!", "-user", "root"], { encoding: "utf8" }).trim();
    expect(owners).toBe("");
    expect((fs.statSync(path.dirname(mirror)).mode & 0o777).toString(8)).toBe("700");
    execFileSync("git", ["--git-dir", mirror, "fsck", "--no-dangling"], { stdio: "ignore" });
  });

  // Last: it crashes the server. Detached processes outlived restarts; the recovery must end them.
  it("after a crash, the restarted server's recovery ends every process of the build it interrupted", {
    timeout: 120_000,
  }, async () => {
    const build = await startBuild(["base_mod", "detach", "slow_install"]);
    const log = await waitForLog(build.build_id, "install", "waiting");
    const detached = values(log, "detached");
    expect(detached).toHaveLength(4);
    const uid = uidOf(log);

    // A crash: the server's process group is killed at once, with no chance to stop anything.
    await builds.app.stopProcess("SIGKILL");
    expect(detached.every(isProcessAlive)).toBe(true);
    crashed = builds;
    const app = await startAppServer({
      BUILDS_CONFIG: builds.fixture.configFile,
      DATABASE_URL: `file:${crashed.app.databaseFile}`,
    });
    builds = connectBuildsApp(app, crashed.fixture, crashed.authorization);

    const interrupted = await builds.waitForStatus(build.build_id, ["failed"], 30_000);
    expect(interrupted.failure_stage).toBe("recovery");
    await expectAllDead(detached, 5_000);
    expect(processesOfUid(uid)).toEqual([]);
  });
});
