import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type BuildJson,
  type BuildsApp,
  expectAllDead,
  fixtureConfig,
  makeBuildsFixture,
  pidsOfBuild,
  startBuildsApp,
  tearDownBuilds,
} from "../support/builds";

// Short lives and a short stage timeout; the reaper looks every half second. The tests below mostly wait (for a
// time to live, a stage timeout, the reaper's passes): they run side by side, one build each, room for three.
let builds: BuildsApp;
// A server whose builds have no runtime: install and test only, as a CI check (no start command, no preview).
// Started beside the first one.
let checks: BuildsApp;
beforeAll(async () => {
  [builds, checks] = await Promise.all([
    startBuildsApp(
      makeBuildsFixture((fixture) =>
        fixtureConfig(fixture, {
          maxConcurrent: 3,
          ttl: "{ default_seconds: 60, min_seconds: 1, max_seconds: 600, choices: [60] }",
          stageTimeout: 3,
        }),
      ),
    ),
    startBuildsApp(
      makeBuildsFixture((fixture) => fixtureConfig(fixture).replace(/^ {2}start: .*\n {2}healthcheck: .*\n/m, "")),
    ),
  ]);
});
afterAll(async () => {
  await Promise.all([tearDownBuilds(builds), tearDownBuilds(checks)]);
});

describe("time to live", { concurrent: true }, () => {
  it("a running build past expires_at is expired by the reaper and its runtime destroyed", async () => {
    const created = (await (
      await builds.post({ repository: "demo", ref: "main", modules: ["base_mod"], ttl_seconds: 4 })
    ).json()) as BuildJson;
    const running = await builds.waitForStatus(created.build_id, ["running", "failed"]);
    expect(running.status).toBe("running");
    expect((await fetch(running.preview_url!)).status).toBe(200);
    const pids = await pidsOfBuild(builds, created.build_id);
    const expired = await builds.waitForStatus(created.build_id, ["expired"], 10_000);
    expect(Date.now()).toBeGreaterThanOrEqual(new Date(expired.expires_at as string).getTime());
    expect(expired.preview_url).toBeNull();
    await expectAllDead(pids);
    await expect(fetch(running.preview_url!)).rejects.toThrow();
    // The start log is over once the runtime is gone.
    expect((await (await builds.get(`/builds/${created.build_id}/logs?stage=start`)).json()).complete).toBe(true);
    const destroyed = await builds.app.fetch(`/builds/${created.build_id}`, {
      method: "DELETE",
      headers: builds.authorization,
    });
    expect((await destroyed.json()).status).toBe("destroyed");
  });
});

describe("a runtime that dies", { concurrent: true }, () => {
  it("fails its running build at stage start and frees its port", async () => {
    const created = (await (
      await builds.post({ repository: "demo", ref: "main", modules: ["base_mod"] })
    ).json()) as BuildJson;
    const running = await builds.waitForStatus(created.build_id, ["running", "failed"]);
    expect(running.status).toBe("running");
    const pids = await pidsOfBuild(builds, created.build_id);
    expect(pids.length).toBeGreaterThan(0);
    // Killed from outside the service, as a crash would end it.
    for (const pid of pids) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        /* already gone */
      }
    }
    const failed = await builds.waitForStatus(created.build_id, ["failed"], 10_000);
    expect(failed).toMatchObject({ failure_stage: "start", preview_url: null });
    expect(failed.failure_message).toMatch(/runtime exited while the build was running/);
    await expectAllDead(pids);
  });
});

describe("a build without a runtime", { concurrent: true }, () => {
  it("stays running through the reaper's passes: there is no runtime that could have exited", async () => {
    // The server of builds without a runtime (beforeAll above).
    const created = (await (
      await checks.post({ repository: "demo", ref: "main", modules: ["base_mod"] })
    ).json()) as BuildJson;
    const running = await checks.waitForStatus(created.build_id, ["running", "failed"]);
    expect(running).toMatchObject({ status: "running", preview_url: null });
    expect(running.stages.filter((stage) => stage.status === "skipped").map((stage) => stage.name)).toEqual([
      "start",
      "healthcheck",
    ]);
    // The reaper looks every half second.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect((await (await checks.get(`/builds/${created.build_id}`)).json()).status).toBe("running");
  });
});

describe("stage_timeout_seconds", { concurrent: true }, () => {
  it("kills a stage that runs too long and fails the build saying so", async () => {
    const created = (await (
      await builds.post({ repository: "demo", ref: "main", modules: ["slow_install"] })
    ).json()) as BuildJson;
    const failed = await builds.waitForStatus(created.build_id, ["failed", "running"], 20_000);
    expect(failed).toMatchObject({ status: "failed", failure_stage: "install" });
    expect(failed.failure_message).toMatch(/ran past stage_timeout_seconds \(3 s\) and was killed/);
    expect(failed.stages.find((stage) => stage.name === "install")!.duration_ms).toBeGreaterThanOrEqual(3000);
    await expectAllDead(await pidsOfBuild(builds, created.build_id));
  });
});
