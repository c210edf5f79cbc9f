import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BuildJson, type BuildsApp, makeBuildsFixture, startBuildsApp, tearDownBuilds } from "../support/builds";
import {
  composeFixtureConfig,
  dockerUnavailableReason,
  ensureTestImage,
  NOTHING_LEFT,
  resourcesOfBuild,
  TEST_TEMPLATE,
} from "../support/compose";

// A template that is YAML but not a valid Compose file: Compose's own `config` finds it.
const unavailable = dockerUnavailableReason();
const BROKEN_TEMPLATE = TEST_TEMPLATE.replace(
  "depends_on: { db: { condition: service_healthy } }",
  "depends_on: [cache]",
);

let builds: BuildsApp;
beforeAll(async () => {
  if (unavailable) return;
  ensureTestImage();
  builds = await startBuildsApp(
    makeBuildsFixture((fixture) => composeFixtureConfig(fixture, { template: BROKEN_TEMPLATE })),
  );
});
afterAll(async () => {
  if (!unavailable) await tearDownBuilds(builds);
});

// Docker on a shared machine is slow at times: each test may take up to two minutes.
describe.skipIf(unavailable)("a compose build whose template Compose rejects", { timeout: 120_000 }, () => {
  it("fails at validate with Compose's message in the validate log, and starts nothing", async () => {
    const build = (await (await builds.post({ repository: "demo", modules: ["base_mod"] })).json()) as BuildJson;
    const failed = await builds.waitForStatus(build.build_id, ["failed", "running"], 60_000);
    expect(failed).toMatchObject({ status: "failed", failure_stage: "validate" });
    expect(failed.failure_message).toMatch(/compose config exited with code [1-9]/);
    const log = (await (await builds.get(`/builds/${build.build_id}/logs?stage=validate`)).json()).content as string;
    expect(log).toMatch(/config --quiet/);
    expect(log).toMatch(/cache/);
    expect(log).toMatch(/undefined|not defined|depends on/i);
    // The stages after the failed one are closed.
    let settled = failed;
    const deadline = Date.now() + 20_000;
    while (settled.stages.some((stage) => stage.status === "pending") && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      settled = (await (await builds.get(`/builds/${build.build_id}`)).json()) as BuildJson;
    }
    expect(settled.stages.find((stage) => stage.name === "database")!.status).toBe("skipped");
    // The stages that never started are skipped as soon as the build fails; the runtime is destroyed just after.
    await expect.poll(() => resourcesOfBuild(build.build_id), { timeout: 30_000, interval: 250 }).toEqual(NOTHING_LEFT);
  });
});
