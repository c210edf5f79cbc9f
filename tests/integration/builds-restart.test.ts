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

let before: BuildsApp | undefined;
let after: BuildsApp | undefined;
// The second server works on the first one's database, which the first one's stop() removes: stop it last.
afterAll(async () => {
  try {
    await tearDownBuilds(after);
  } finally {
    await before?.app.stop();
  }
});

describe("a restart with builds running, in progress and queued", () => {
  // Two server starts: on a busy 2-core machine each may take 20 s.
  it("keeps live runtimes, fails interrupted builds (killing their processes) and runs the queued ones", {
    timeout: 120_000,
  }, async () => {
    const fixture = makeBuildsFixture((partial) => fixtureConfig(partial, { maxConcurrent: 1 }));
    before = await startBuildsApp(fixture);
    const running = (await (
      await before.post({ repository: "demo", ref: "main", modules: ["base_mod"] })
    ).json()) as BuildJson;
    const preview = (await before.waitForStatus(running.build_id, ["running"])).preview_url!;
    const inProgress = (await (
      await before.post({ repository: "demo", ref: "main", modules: ["slow_install"] })
    ).json()) as BuildJson;
    await before.waitForStatus(inProgress.build_id, ["installing"]);
    const queued = (await (
      await before.post({ repository: "demo", ref: "main", modules: ["extra_mod"] })
    ).json()) as BuildJson;
    expect(queued.queue_position).toBe(1);
    let interruptedPids: number[] = [];
    const deadline = Date.now() + 10_000;
    while (interruptedPids.length < 2 && Date.now() < deadline)
      interruptedPids = await pidsOfBuild(before, inProgress.build_id);
    expect(interruptedPids).toHaveLength(2);

    // A crash: the server's process group is killed at once, with no chance to stop anything. The stages and
    // runtimes live in their own process groups, so they outlive it.
    await before.app.stopProcess("SIGKILL");
    expect(interruptedPids.every(isProcessAlive)).toBe(true);

    const app = await startAppServer({
      BUILDS_CONFIG: fixture.configFile,
      DATABASE_URL: `file:${before.app.databaseFile}`,
    });
    after = connectBuildsApp(app, fixture, before.authorization);

    const interrupted = await after.waitForStatus(inProgress.build_id, ["failed"], 5_000);
    expect(interrupted).toMatchObject({ failure_stage: "recovery", preview_url: null });
    expect(interrupted.failure_message).toMatch(/server stopped while the build was installing/);
    expect(interrupted.stages.find((stage) => stage.name === "install")!.status).toBe("failed");
    await expectAllDead(interruptedPids);

    const stillRunning = (await (await after.get(`/builds/${running.build_id}`)).json()) as BuildJson;
    expect(stillRunning).toMatchObject({ status: "running", preview_url: preview });
    expect((await fetch(preview)).status).toBe(200);

    const ran = await after.waitForStatus(queued.build_id, ["running", "failed"]);
    expect(ran.status).toBe("running");
    // The surviving runtime keeps its port: the queued build got another one.
    expect(ran.preview_url).not.toBe(preview);
    expect(await (await fetch(ran.preview_url!)).text()).toBe(`build ${queued.build_id} modules extra_mod`);
  });
});
