import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type BuildJson,
  type BuildsApp,
  fixtureConfig,
  makeBuildsFixture,
  startBuildsApp,
  tearDownBuilds,
} from "../support/builds";
import { MB, openStalledStream, residentBytes, type StalledStream } from "../support/sse";

// The install stage prints 300 MB in lines of 100 bytes; the log keeps 200 MB of it.
const WRITTEN_MB = 300;
const LIMIT_MB = 200;
const LINE = "x".repeat(99);

let builds: BuildsApp;
beforeAll(async () => {
  const fixture = makeBuildsFixture((partial) =>
    fixtureConfig(partial)
      .replace(
        "install: node stages/install.mjs",
        `install: yes ${LINE} | head -c ${WRITTEN_MB * MB}; echo install-went-on`,
      )
      .replace("stage_timeout_seconds:", `stage_log_limit_mb: ${LIMIT_MB}\nstage_timeout_seconds:`),
  );
  builds = await startBuildsApp(fixture);
});
afterAll(() => tearDownBuilds(builds));

describe("GET /builds/{build_id}/logs/stream with clients that do not read", () => {
  it(`keeps the server's memory bounded while a stage writes ${WRITTEN_MB} MB, and caps the log at stage_log_limit_mb`, async () => {
    const created = (await (
      await builds.post({ repository: "demo", ref: "main", modules: ["base_mod"] })
    ).json()) as BuildJson;
    await builds.waitForStatus(created.build_id, ["installing", "testing", "running", "failed"]);
    const before = residentBytes(builds.app.pid);
    // Four clients that never read, connected while the stage writes, and which stay until its end.
    const stalled: StalledStream[] = [];
    for (let client = 0; client < 4; client++) {
      stalled.push(
        await openStalledStream(`${builds.app.baseUrl}/builds/${created.build_id}/logs/stream?stage=install`),
      );
    }
    expect(stalled.map((stream) => stream.status)).toEqual([200, 200, 200, 200]);
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, residentBytes(builds.app.pid))), 100);
    try {
      const build = await builds.waitForStatus(created.build_id, ["running", "failed"], 120_000);
      expect(build.status).toBe("running");
      expect(build.stages.find((stage) => stage.name === "install")).toMatchObject({
        status: "succeeded",
        exit_code: 0,
      });
      // A few seconds more of stalled clients on a complete 200 MB log: the old code read it all into their queues.
      await new Promise((resolve) => setTimeout(resolve, 3_000));
    } finally {
      clearInterval(sampler);
      for (const stream of stalled) stream.close();
    }
    const growth = peak - before;
    console.info(
      `server RSS ${(before / MB).toFixed(0)} MB before, ${(peak / MB).toFixed(0)} MB at most: +${(growth / MB).toFixed(0)} MB`,
    );
    // One 64 KB event waits per stream; 100 MB leaves room for the garbage collector's own pace.
    expect(growth).toBeLessThan(100 * MB);

    const log = path.join(builds.fixture.buildsRoot, created.build_id, "logs", "install.log");
    const size = fs.statSync(log).size;
    expect(size).toBeGreaterThanOrEqual(LIMIT_MB * MB);
    expect(size).toBeLessThan(LIMIT_MB * MB + 1_000);
    const tail = (await (await builds.get(`/builds/${created.build_id}/logs?stage=install`)).json()) as {
      content: string;
      size: number;
    };
    expect(tail.size).toBe(size);
    expect(tail.content).toMatch(
      /\[builds\] The log reached its limit of 209715200 bytes \(stage_log_limit_mb\)[^\n]*\n$/,
    );
    // The stage went on past the cap (its output was drained, not blocked) and the next stages ran.
    expect(tail.content).not.toContain("install-went-on");
  });
});
