import { type ChildProcess, spawn } from "node:child_process";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { startAppServer } from "../support/app-server";
import {
  type BuildJson,
  type BuildsApp,
  connectBuildsApp,
  expectAllDead,
  fixtureConfig,
  isProcessAlive,
  makeBuildsFixture,
  pidsOfBuild,
  startBuildsApp,
  tearDownBuilds,
} from "../support/builds";

// After a restart, a recorded process group id may belong to someone else by now.
let before: BuildsApp | undefined;
let after: BuildsApp | undefined;
let stranger: ChildProcess | undefined;
afterAll(async () => {
  try {
    if (stranger?.pid) process.kill(-stranger.pid, "SIGKILL");
  } catch {
    /* gone */
  }
  try {
    await tearDownBuilds(after);
  } finally {
    await before?.app.stop();
  }
});

describe("a restart where the runtime's recorded process group id now belongs to another process", () => {
  // Two server starts: on a busy 2-core machine each may take 20 s.
  it("does not take the build for alive, and neither the recovery nor DELETE signals that process", {
    timeout: 120_000,
  }, async () => {
    const fixture = makeBuildsFixture((partial) => fixtureConfig(partial));
    before = await startBuildsApp(fixture);
    const build = (await (await before.post({ repository: "demo", modules: ["base_mod"] })).json()) as BuildJson;
    await before.waitForStatus(build.build_id, ["running"]);
    const runtimePids = await pidsOfBuild(before, build.build_id);

    await before.app.stopProcess("SIGKILL");
    const database = new Database(before.app.databaseFile);
    const { runtimeHandle } = database
      .prepare(`SELECT "runtimeHandle" FROM "Build" WHERE id = ?`)
      .get(build.build_id) as {
      runtimeHandle: string;
    };
    const recorded = JSON.parse(runtimeHandle) as { pgid: number; start: string };
    expect(recorded.start).toMatch(/^\d+$/);
    // The runtime dies while the server is down, and its id goes to an unrelated process group leader.
    process.kill(-recorded.pgid, "SIGKILL");
    await expectAllDead(runtimePids);
    stranger = spawn("sleep", ["300"], { detached: true, stdio: "ignore" });
    database
      .prepare(`UPDATE "Build" SET "runtimeHandle" = ? WHERE id = ?`)
      .run(JSON.stringify({ pgid: stranger.pid, start: recorded.start }), build.build_id);
    database.close();

    const app = await startAppServer({
      BUILDS_CONFIG: fixture.configFile,
      DATABASE_URL: `file:${before.app.databaseFile}`,
    });
    after = connectBuildsApp(app, fixture, before.authorization);
    const failed = await after.waitForStatus(build.build_id, ["failed"], 10_000);
    expect(failed).toMatchObject({ failure_stage: "recovery", preview_url: null });
    expect(failed.failure_message).toMatch(/no longer alive/);
    expect(isProcessAlive(stranger.pid!)).toBe(true);

    const deleted = await after.app.fetch(`/builds/${build.build_id}`, {
      method: "DELETE",
      headers: after.authorization,
    });
    expect(deleted.status).toBe(200);
    expect((await deleted.json()).status).toBe("destroyed");
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(isProcessAlive(stranger.pid!)).toBe(true);
  });
});
