import fs from "node:fs";
import os from "node:os";
import path from "node:path";
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

let builds: BuildsApp;
beforeAll(async () => {
  builds = await startBuildsApp(makeBuildsFixture((fixture) => fixtureConfig(fixture)));
});
afterAll(() => tearDownBuilds(builds));

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe("POST /builds → running → DELETE /builds/{build_id}", () => {
  let running: BuildJson;

  it("answers 202 with the queued build and its Location", async () => {
    const response = await builds.post({
      repositories: [{ repository: "demo", ref: "feature" }],
      modules: ["feature_mod", "base_mod"],
      ttl_seconds: 3600,
    });
    expect(response.status).toBe(202);
    const build = (await response.json()) as BuildJson;
    expect(response.headers.get("location")).toBe(`/builds/${build.build_id}`);
    expect(build).toMatchObject({
      status: expect.stringMatching(/^(queued|checking_out)$/),
      repositories: [{ repository: "demo", ref: "feature", commit_sha: expect.stringMatching(/^[0-9a-f]{40}$/) }],
      modules: ["feature_mod", "base_mod"],
      ttl_seconds: 3600,
      created_at: expect.stringMatching(ISO),
      preview_url: null,
      // Null while queued; the claiming instance's name once claimed.
      host: build.status === "queued" ? null : expect.any(String),
      failure_stage: null,
      created_by: expect.stringMatching(/^user-[0-9a-f-]+$/),
      trigger: "manual",
      triggered_by: build.created_by,
      // The time to live starts at running.
      expires_at: null,
    });
    expect((build.repositories as object[])[0]).toMatchObject({
      commit_subject: "a feature module",
      commit_author: "Test",
    });
    expect(build.stages.map((stage) => stage.name)).toEqual(["checkout", "install", "test", "start", "healthcheck"]);
    running = await builds.waitForStatus(build.build_id, ["running", "failed"]);
  });

  it("reaches running with every stage succeeded and answers on its preview URL", async () => {
    expect(running.status).toBe("running");
    expect(running.stages.map((stage) => [stage.name, stage.status])).toEqual([
      ["checkout", "succeeded"],
      ["install", "succeeded"],
      ["test", "succeeded"],
      ["start", "succeeded"],
      ["healthcheck", "succeeded"],
    ]);
    expect(running.stages.find((stage) => stage.name === "install")).toMatchObject({
      exit_code: 0,
      duration_ms: expect.any(Number),
    });
    expect(running.started_at).toMatch(ISO);
    // finished_at is when it reached running: its life is counted from there.
    expect(new Date(running.expires_at as string).getTime() - new Date(running.finished_at as string).getTime()).toBe(
      3600_000,
    );
    expect(running.preview_url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${builds.fixture.ports.start}/$`));
    // The instance that claimed and ran it: by default the machine's host name and the server's port.
    expect(running.host).toBe(`${os.hostname()}:${new URL(builds.app.baseUrl).port}`);
    const preview = await fetch(running.preview_url!);
    expect(await preview.text()).toBe(`build ${running.build_id} modules feature_mod,base_mod`);
  });

  it("checked out the resolved commit under sources/<alias> and gave the stages their variables", async () => {
    const workspace = path.join(builds.fixture.buildsRoot, running.build_id);
    expect(fs.existsSync(path.join(workspace, "sources", "demo", "addons", "feature_mod", "manifest.json"))).toBe(true);
    const install = (await (await builds.get(`/builds/${running.build_id}/logs?stage=install`)).json()) as {
      content: string;
    };
    const port = new URL(running.preview_url!).port;
    expect(install.content).toContain(`install feature_mod base_mod for build ${running.build_id} on port ${port}`);
    expect(install.content).toContain(`addons ${path.join(workspace, "sources", "demo", "addons")}`);
  });

  it("lists it newest first, filters by status and pages with a cursor", async () => {
    const second = (await (
      await builds.post({ repository: "demo", ref: "main", modules: ["base_mod"] })
    ).json()) as BuildJson;
    await builds.waitForStatus(second.build_id, ["running"]);
    const list = await (await builds.get("/builds")).json();
    expect(list.builds.map((b: BuildJson) => b.build_id).slice(0, 2)).toEqual([second.build_id, running.build_id]);
    expect(list.builds[0]).not.toHaveProperty("stages");
    const page1 = await (await builds.get("/builds?limit=1")).json();
    expect(page1.builds.map((b: BuildJson) => b.build_id)).toEqual([second.build_id]);
    const page2 = await (await builds.get(`/builds?limit=1&cursor=${page1.next_cursor}`)).json();
    expect(page2.builds.map((b: BuildJson) => b.build_id)).toEqual([running.build_id]);
    expect(page2.next_cursor).toBeNull();
    const failedOnly = await (await builds.get("/builds?status=failed")).json();
    expect(failedOnly.builds).toEqual([]);
    expect((await builds.get("/builds?status=sideways")).status).toBe(400);
    expect((await builds.get("/builds?limit=0")).status).toBe(400);
    expect((await builds.get("/builds?cursor=nope")).status).toBe(400);
    // The legacy form without ttl_seconds gets the configured default.
    expect(second.ttl_seconds).toBe(3600);
  });

  it("answers 409 to cancel a running build, pointing to DELETE", async () => {
    const response = await builds.app.fetch(`/builds/${running.build_id}/cancel`, {
      method: "POST",
      headers: builds.authorization,
    });
    expect(response.status).toBe(409);
    expect((await response.json()).detail).toMatch(/DELETE/);
  });

  it("DELETE destroys the runtime: processes stopped, port freed, runtime removed, logs kept; again answers 200", async () => {
    const pids = await pidsOfBuild(builds, running.build_id);
    expect(pids.length).toBeGreaterThanOrEqual(3);
    const unauthorized = await builds.app.fetch(`/builds/${running.build_id}`, { method: "DELETE" });
    expect(unauthorized.status).toBe(401);
    const response = await builds.app.fetch(`/builds/${running.build_id}`, {
      method: "DELETE",
      headers: builds.authorization,
    });
    expect(response.status).toBe(200);
    const destroyed = (await response.json()) as BuildJson;
    expect(destroyed).toMatchObject({ status: "destroyed", preview_url: null });
    await expectAllDead(pids);
    await expect(fetch(running.preview_url!)).rejects.toThrow();
    const workspace = path.join(builds.fixture.buildsRoot, running.build_id);
    expect(fs.existsSync(path.join(workspace, "runtime"))).toBe(false);
    expect(fs.readdirSync(path.join(workspace, "logs")).sort()).toEqual([
      "checkout.log",
      "healthcheck.log",
      "install.log",
      "start.log",
      "test.log",
    ]);
    const again = await builds.app.fetch(`/builds/${running.build_id}`, {
      method: "DELETE",
      headers: builds.authorization,
    });
    expect(again.status).toBe(200);
    expect((await again.json()).status).toBe("destroyed");
  });
});

describe("a build that fails in test", () => {
  it("is failed at the test stage, skips the rest and destroys its runtime", async () => {
    const created = (await (
      await builds.post({ repositories: [{ repository: "demo" }], modules: ["base_mod", "broken"] })
    ).json()) as BuildJson;
    const failed = await builds.waitForStatus(created.build_id, ["failed", "running"]);
    expect(failed).toMatchObject({ status: "failed", failure_stage: "test", preview_url: null });
    expect(failed.failure_message).toMatch(/exited with code 3/);
    // The stages that never started are skipped as soon as the build is marked failed; its runtime is destroyed just after.
    const stagesOf = async () => ((await (await builds.get(`/builds/${created.build_id}`)).json()) as BuildJson).stages;
    await expect
      .poll(async () => (await stagesOf()).map((stage) => [stage.name, stage.status, stage.exit_code]), {
        timeout: 10_000,
      })
      .toEqual([
        ["checkout", "succeeded", 0],
        ["install", "succeeded", 0],
        ["test", "failed", 3],
        ["start", "skipped", null],
        ["healthcheck", "skipped", null],
      ]);
    const log = await (await builds.get(`/builds/${created.build_id}/logs?stage=test`)).json();
    expect(log.content).toContain("the broken module fails its tests");
    expect(log.complete).toBe(true);
    await expect
      .poll(() => fs.existsSync(path.join(builds.fixture.buildsRoot, created.build_id, "runtime")), { timeout: 10_000 })
      .toBe(false);
    await expectAllDead(await pidsOfBuild(builds, created.build_id));
    const cancel = await builds.app.fetch(`/builds/${created.build_id}/cancel`, {
      method: "POST",
      headers: builds.authorization,
    });
    expect(cancel.status).toBe(409);
    const destroy = await builds.app.fetch(`/builds/${created.build_id}`, {
      method: "DELETE",
      headers: builds.authorization,
    });
    expect((await destroy.json()).status).toBe("destroyed");
  });
});

describe("unknown build_id", () => {
  it("answers 404 on every route", async () => {
    const id = "0000000000000000";
    const auth = { headers: builds.authorization };
    for (const response of [
      await builds.get(`/builds/${id}`),
      await builds.get(`/builds/${id}/logs`),
      await builds.get(`/builds/${id}/logs/stream?stage=install`),
      await builds.app.fetch(`/builds/${id}/cancel`, { method: "POST", ...auth }),
      await builds.app.fetch(`/builds/${id}`, { method: "DELETE", ...auth }),
      await builds.get(`/builds/..%2F..%2Fetc`),
    ]) {
      expect(response.status).toBe(404);
      expect(response.headers.get("content-type")).toBe("application/problem+json");
    }
  });
});

describe("GET /builds/{build_id}: the build's address for people and for programs", () => {
  const browserAccept = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

  it("sends a browser to the builds console with the build open, and gives JSON clients the build", async () => {
    const created = (await (
      await builds.post({ repository: "demo", ref: "main", modules: ["base_mod"] })
    ).json()) as BuildJson;
    const page = await builds.app.fetch(`/builds/${created.build_id}`, {
      headers: { Accept: browserAccept },
      redirect: "manual",
    });
    expect(page.status).toBe(303);
    expect(page.headers.get("location")).toBe(`/builds?build=${created.build_id}`);
    expect(page.headers.get("vary")).toMatch(/Accept/);

    for (const accept of ["application/json", "*/*"]) {
      const data = await builds.app.fetch(`/builds/${created.build_id}`, { headers: { Accept: accept } });
      expect(data.status).toBe(200);
      expect(((await data.json()) as BuildJson).build_id).toBe(created.build_id);
    }
  });
});
