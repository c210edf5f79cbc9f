import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type BuildJson,
  type BuildsApp,
  expectAllDead,
  fixtureConfig,
  isProcessAlive,
  makeBuildsFixture,
  pidsOfBuild,
  startBuildsApp,
  tearDownBuilds,
} from "../support/builds";

// One build at a time and one waiting: a third is refused.
let builds: BuildsApp;
beforeAll(async () => {
  builds = await startBuildsApp(
    makeBuildsFixture((fixture) => fixtureConfig(fixture, { maxConcurrent: 1, maxQueued: 1 })),
  );
});
afterAll(() => tearDownBuilds(builds));

const slow = { repositories: [{ repository: "demo" }], modules: ["base_mod", "slow_install"] };

async function waitForLog(buildId: string, stage: string, text: string) {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const log = await (await builds.get(`/builds/${buildId}/logs?stage=${stage}`)).json();
    if (log.content.includes(text)) return log.content as string;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the ${stage} log of ${buildId} never showed ${text}`);
}

const cancel = (buildId: string) =>
  builds.app.fetch(`/builds/${buildId}/cancel`, { method: "POST", headers: builds.authorization });

describe("the queue and POST /builds/{build_id}/cancel", () => {
  let installing: BuildJson;
  let queued: BuildJson;

  it("queues builds past max_concurrent_builds with their position, and answers 503 past max_queued_builds", async () => {
    installing = await (await builds.post(slow)).json();
    await builds.waitForStatus(installing.build_id, ["installing"]);
    await waitForLog(installing.build_id, "install", "waiting");
    // Four at once for the one free place in the queue: exactly one gets it, however the requests interleave.
    const responses = await Promise.all(
      [1, 2, 3, 4].map(() => builds.post({ repository: "demo", ref: "main", modules: ["base_mod"] })),
    );
    expect(responses.map((response) => response.status).sort()).toEqual([202, 503, 503, 503]);
    const accepted = responses.find((response) => response.status === 202)!;
    queued = await accepted.json();
    expect(queued).toMatchObject({ status: "queued", queue_position: 1 });
    const full = responses.find((response) => response.status === 503)!;
    expect(full.headers.get("retry-after")).toBe("30");
    expect((await full.json()).detail).toMatch(/queue is full/);
  });

  it("answers 409 to DELETE while queued or in progress, pointing to cancel", async () => {
    for (const build of [installing, queued]) {
      const response = await builds.app.fetch(`/builds/${build.build_id}`, {
        method: "DELETE",
        headers: builds.authorization,
      });
      expect(response.status).toBe(409);
      expect((await response.json()).detail).toContain(`POST /builds/${build.build_id}/cancel`);
    }
  });

  it("cancels a queued build: it never runs", async () => {
    expect((await builds.app.fetch(`/builds/${queued.build_id}/cancel`, { method: "POST" })).status).toBe(401);
    const response = await cancel(queued.build_id);
    expect(response.status).toBe(200);
    const canceled = (await response.json()) as BuildJson;
    expect(canceled).toMatchObject({ status: "canceled", queue_position: null });
    expect(canceled.stages.every((stage) => stage.status === "canceled")).toBe(true);
  });

  it("cancels a build while installing: SIGTERM to the stage's process group, the runtime destroyed", async () => {
    const pids = await pidsOfBuild(builds, installing.build_id);
    expect(pids).toHaveLength(2); // the install script and the child it started
    expect(pids.every(isProcessAlive)).toBe(true);
    const response = await cancel(installing.build_id);
    expect(response.status).toBe(200);
    const canceled = (await response.json()) as BuildJson;
    expect(canceled.status).toBe("canceled");
    expect(canceled.stages.map((stage) => [stage.name, stage.status])).toEqual([
      ["checkout", "succeeded"],
      ["install", "canceled"],
      ["test", "canceled"],
      ["start", "canceled"],
      ["healthcheck", "canceled"],
    ]);
    // The cancel answers once the processes are gone.
    expect(pids.filter(isProcessAlive)).toEqual([]);
    expect(fs.existsSync(path.join(builds.fixture.buildsRoot, installing.build_id, "runtime"))).toBe(false);
    const again = await cancel(installing.build_id);
    expect(again.status).toBe(409);
    expect((await again.json()).detail).toMatch(/already over \(canceled\)/);
  });

  it("runs the next build once a slot is free, and a canceled build can be destroyed", async () => {
    const next = (await (
      await builds.post({ repository: "demo", ref: "main", modules: ["extra_mod"] })
    ).json()) as BuildJson;
    const running = await builds.waitForStatus(next.build_id, ["running", "failed"]);
    expect(running.status, `failed at ${running.failure_stage}: ${running.failure_message}`).toBe("running");
    // The canceled queued build was skipped by the executor, not run.
    expect((await (await builds.get(`/builds/${queued.build_id}`)).json()).status).toBe("canceled");
    const destroyed = await builds.app.fetch(`/builds/${installing.build_id}`, {
      method: "DELETE",
      headers: builds.authorization,
    });
    expect((await destroyed.json()).status).toBe("destroyed");
    await expectAllDead(await pidsOfBuild(builds, installing.build_id));
  });
});
