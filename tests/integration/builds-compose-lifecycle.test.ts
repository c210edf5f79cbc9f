import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BuildJson, type BuildsApp, makeBuildsFixture, startBuildsApp, tearDownBuilds } from "../support/builds";
import {
  composeFixtureConfig,
  dockerUnavailableReason,
  ensureTestImage,
  NOTHING_LEFT,
  resourcesOfBuild,
} from "../support/compose";

// The compose driver against the real Docker engine: every build is a Compose project of two services.
const unavailable = dockerUnavailableReason();
if (unavailable) console.warn(`skipping the compose driver's tests: ${unavailable}`);

const COMPOSE_STAGES = ["checkout", "render", "validate", "database", "install", "test", "start", "healthcheck"];

let builds: BuildsApp;
beforeAll(async () => {
  if (unavailable) return;
  ensureTestImage();
  builds = await startBuildsApp(
    makeBuildsFixture((fixture) => composeFixtureConfig(fixture, { maxConcurrent: 5 }), ["bad_install"]),
  );
});
afterAll(async () => {
  if (!unavailable) await tearDownBuilds(builds);
});

async function startBuild(modules: string[], extra: Record<string, unknown> = {}): Promise<BuildJson> {
  const response = await builds.post({ repositories: [{ repository: "demo" }], modules, ...extra });
  expect(response.status).toBe(202);
  return (await response.json()) as BuildJson;
}

async function stageLog(buildId: string, stage: string): Promise<string> {
  return ((await (await builds.get(`/builds/${buildId}/logs?stage=${stage}`)).json()) as { content: string }).content;
}

/**
 * A build's status changes first, then its runtime is destroyed and its open stages closed: wait (a little)
 * for that to finish, then nothing of the build may be left.
 */
async function expectNothingLeft(buildId: string): Promise<BuildJson> {
  const deadline = Date.now() + 30_000;
  let build: BuildJson;
  for (;;) {
    build = (await (await builds.get(`/builds/${buildId}`)).json()) as BuildJson;
    const settled = build.stages.every((stage) => stage.status !== "pending" && stage.status !== "running");
    const left = Object.values(resourcesOfBuild(buildId)).some((list) => list.length > 0);
    if ((settled && !left) || Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  expect(resourcesOfBuild(buildId)).toEqual(NOTHING_LEFT);
  return build;
}

// Docker on a shared machine is slow at times: each test may take up to two minutes.
describe.skipIf(unavailable)("builds with the compose driver (runtime.driver: compose)", { timeout: 120_000 }, () => {
  it("GET /app-config reports the compose runtime, ready, and its stages", async () => {
    const config = await (await builds.get("/app-config")).json();
    expect(config.runtime).toEqual({ driver: "compose", ready: true, reason: null, stages: COMPOSE_STAGES });
  });

  // The builds below run side by side (max_concurrent_builds: 5): their waits overlap.
  it.concurrent("POST /builds reaches running with two services, the preview answering on the leased port; DELETE leaves nothing", async () => {
    const posted = Date.now();
    const build = await startBuild(["base_mod", "extra_mod"]);
    expect(build.stages.map((stage) => stage.name)).toEqual(COMPOSE_STAGES);
    const running = await builds.waitForStatus(build.build_id, ["running", "failed"], 100_000);
    const toRunning = Date.now() - posted;
    expect(running.status, running.failure_message ?? "").toBe("running");
    expect(running.stages.every((stage) => stage.status === "succeeded")).toBe(true);
    const port = Number(new URL(running.preview_url!).port);
    expect(port).toBeGreaterThanOrEqual(builds.fixture.ports.start);
    expect(port).toBeLessThanOrEqual(builds.fixture.ports.end);
    expect((await (await fetch(running.preview_url!)).text()).trim()).toBe(
      `build ${build.build_id} modules base_mod,extra_mod`,
    );

    const resources = resourcesOfBuild(build.build_id);
    expect(resources.containers).toHaveLength(2);
    expect(resources.volumes).toHaveLength(1);
    expect(resources.networks).toHaveLength(1);
    expect(await stageLog(build.build_id, "render")).toContain(`org.bcv-runbot.build: ${build.build_id}`);
    const databaseLog = await stageLog(build.build_id, "database");
    expect(databaseLog).toMatch(/db: running healthy/);
    expect(databaseLog).toMatch(new RegExp(`\\| database of ${build.build_id} up`));
    expect(await stageLog(build.build_id, "install")).toMatch(
      /^install base_mod,extra_mod from \/mnt\/sources\/demo\/addons$/m,
    );
    expect(await stageLog(build.build_id, "test")).toMatch(/^tests passed$/m);

    const deleting = Date.now();
    const deleted = await builds.app.fetch(`/builds/${build.build_id}`, {
      method: "DELETE",
      headers: builds.authorization,
    });
    const teardown = Date.now() - deleting;
    expect(deleted.status).toBe(200);
    expect((await deleted.json()).status).toBe("destroyed");
    await expectNothingLeft(build.build_id);
    await expect(fetch(running.preview_url!)).rejects.toThrow();
    const stages = running.stages.map((stage) => `${stage.name} ${stage.duration_ms} ms`).join(", ");
    console.log(`compose stack: POST to running ${toRunning} ms (${stages}), DELETE (teardown) ${teardown} ms`);
  });

  it.concurrent("fails at install when the install command fails, and leaves nothing", async () => {
    const build = await startBuild(["bad_install"]);
    const failed = await builds.waitForStatus(build.build_id, ["failed", "running"], 100_000);
    expect(failed).toMatchObject({ status: "failed", failure_stage: "install" });
    expect(failed.failure_message).toMatch(/The install command exited with code 4/);
    expect(await stageLog(build.build_id, "install")).toMatch(/^cannot install$/m);
    const settled = await expectNothingLeft(build.build_id);
    expect(settled.stages.find((stage) => stage.name === "test")!.status).toBe("skipped");
  });

  it.concurrent("fails at test when the tests fail, with their output in the test log, and leaves nothing", async () => {
    const build = await startBuild(["broken"]);
    const failed = await builds.waitForStatus(build.build_id, ["failed", "running"], 100_000);
    expect(failed).toMatchObject({ status: "failed", failure_stage: "test" });
    expect(failed.stages.find((stage) => stage.name === "test")!.exit_code).toBe(3);
    expect(await stageLog(build.build_id, "test")).toMatch(/^the broken module fails its tests$/m);
    await expectNothingLeft(build.build_id);
  });

  it.concurrent("POST /builds/{id}/cancel during install stops it and leaves no container", async () => {
    const build = await startBuild(["slow_install"]);
    await builds.waitForStatus(build.build_id, ["installing"], 100_000);
    const deadline = Date.now() + 30_000;
    // The command line is logged too: wait for the line the container prints.
    while (!/^waiting$/m.test(await stageLog(build.build_id, "install")) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(resourcesOfBuild(build.build_id).containers.length).toBeGreaterThanOrEqual(2);
    const canceled = await builds.app.fetch(`/builds/${build.build_id}/cancel`, {
      method: "POST",
      headers: builds.authorization,
    });
    expect(canceled.status).toBe(200);
    await builds.waitForStatus(build.build_id, ["canceled"]);
    const over = await expectNothingLeft(build.build_id);
    expect(over.stages.find((stage) => stage.name === "install")!.status).toBe("canceled");
  });

  it.concurrent("expiry destroys a running build's project: no container, network or volume is left", async () => {
    const build = await startBuild(["base_mod"], { ttl_seconds: 2 });
    await builds.waitForStatus(build.build_id, ["expired"], 100_000);
    await expectNothingLeft(build.build_id);
  });
});
