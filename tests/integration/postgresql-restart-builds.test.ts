import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AppServer, startAppServer } from "../support/app-server";
import {
  type BuildJson,
  type BuildsApp,
  connectBuildsApp,
  fixtureConfig,
  isProcessAlive,
  makeBuildsFixture,
  pidsOfBuild,
  startBuildsApp,
  tearDownBuilds,
} from "../support/builds";
import { queryDatabase } from "../support/database";
import { type OwnPostgresql, startOwnPostgresql } from "../support/postgresql";

/**
 * PostgreSQL only (project integration-postgresql): builds whose stages end while the database is stopped. On a
 * cluster of the file's own, stopped and started under the server: what the executor could not write meanwhile
 * is written once the database is back, in order, and the build goes on; a build that was failed meanwhile (as
 * another instance does to the builds of a host it counts as lost) is not brought back by those late writes.
 */
let database: OwnPostgresql;
let builds: BuildsApp;
/** The server before the restart of the last test: stopped there, its folder removed at the end. */
let earlier: AppServer | undefined;

beforeAll(async () => {
  database = await startOwnPostgresql();
  const fixture = makeBuildsFixture((partial) => fixtureConfig(partial), ["pausing_install", "pausing_start"]);
  // A name of its own, kept across the restart below: on PostgreSQL an instance recovers the builds of its name.
  builds = await startBuildsApp(fixture, { DATABASE_URL: database.databaseUrl, INSTANCE_NAME: "solo" });
});
afterAll(async () => {
  await tearDownBuilds(builds);
  await earlier?.stop();
  database?.stop();
});

async function createBuild(modules: string[]): Promise<string> {
  const response = await builds.post({ repositories: [{ repository: "demo" }], modules });
  expect(response.status).toBe(202);
  return (await response.json()).build_id;
}

/** Waits until the build's stage `name` is running, as recorded in the database. */
async function waitForRunningStage(buildId: string, name: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const build = (await (await builds.get(`/builds/${buildId}`)).json()) as BuildJson;
    if (build.stages.find((stage) => stage.name === name)?.status === "running") return;
    if (Date.now() > deadline) throw new Error(`stage ${name} never ran: ${JSON.stringify(build)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Waits until a stage's log (on the build's disk, readable without the database) holds `text`. */
async function waitForLog(buildId: string, stage: string, text: string): Promise<void> {
  const file = path.join(builds.fixture.buildsRoot, buildId, "logs", `${stage}.log`);
  const deadline = Date.now() + 30_000;
  while (!(fs.existsSync(file) && fs.readFileSync(file, "utf8").includes(text))) {
    if (Date.now() > deadline) throw new Error(`the ${stage} log never showed "${text}"`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** How long the database stays away after a stage ended: the executor's first writes fail meanwhile. */
const AWAY_AFTER_THE_END_MS = 1500;
const stayAway = () => new Promise<void>((resolve) => setTimeout(resolve, AWAY_AFTER_THE_END_MS));

/**
 * Starts a build of `modules` and stops PostgreSQL while its `stage` runs; once the stage's log shows `end` (the
 * stage ended with the database away), runs `meanwhile` with the build's id, then brings the database back on TCP. Answers the
 * build's id.
 */
async function buildWhoseStageEndsWithoutDatabase(
  modules: string[],
  stage: string,
  end: string,
  meanwhile: (buildId: string) => Promise<void> = stayAway,
): Promise<string> {
  const buildId = await createBuild(modules);
  await waitForRunningStage(buildId, stage);
  database.stopServer();
  try {
    await waitForLog(buildId, stage, end);
    await meanwhile(buildId);
  } finally {
    database.startServer();
  }
  return buildId;
}

describe("a stage that ends while PostgreSQL is stopped", () => {
  it("is recorded once the database is back, and the build goes on to run its preview", {
    timeout: 90_000,
  }, async () => {
    const buildId = await buildWhoseStageEndsWithoutDatabase(
      ["base_mod", "pausing_install"],
      "install",
      "install over",
    );
    const running = await builds.waitForStatus(buildId, ["running"], 30_000);
    expect(running.stages.map((stage) => [stage.name, stage.status])).toEqual([
      ["checkout", "succeeded"],
      ["install", "succeeded"],
      ["test", "succeeded"],
      ["start", "succeeded"],
      ["healthcheck", "succeeded"],
    ]);
    expect(builds.app.output()).toContain(`build ${buildId} waits for the database`);
  });

  it("the start stage's end: the preview, started meanwhile, runs once the database is back", {
    timeout: 90_000,
  }, async () => {
    const buildId = await buildWhoseStageEndsWithoutDatabase(["base_mod", "pausing_start"], "healthcheck", "answered");
    const running = await builds.waitForStatus(buildId, ["running"], 30_000);
    const preview = await fetch(running.preview_url!);
    expect(await preview.text()).toBe(`build ${buildId} modules base_mod,pausing_start`);
  });

  it("a build failed meanwhile stays failed: the late writes move it only from the status they expect", {
    timeout: 90_000,
  }, async () => {
    const buildId = await buildWhoseStageEndsWithoutDatabase(
      ["base_mod", "pausing_install"],
      "install",
      "install over",
      async (buildId) => {
        await stayAway();
        // Back on its Unix socket only: the server, on TCP, still cannot write while another instance fails the build.
        database.startServer({ tcp: false });
        const socket = { databaseUrl: database.socketUrl };
        queryDatabase(
          socket,
          {
            sqlite: "",
            postgresql: `UPDATE "Build" SET "status" = 'failed', "failureStage" = 'recovery', "failureMessage" = 'Failed elsewhere.' WHERE "id" = :'params'::json->>0`,
          },
          [buildId],
        );
        queryDatabase(
          socket,
          {
            sqlite: "",
            postgresql: `UPDATE "BuildStage" SET "status" = CASE "status" WHEN 'running' THEN 'failed' ELSE 'skipped' END WHERE "buildId" = :'params'::json->>0 AND "status" IN ('running', 'pending')`,
          },
          [buildId],
        );
        database.stopServer();
      },
    );
    // The executor's late writes land (or find the build moved) within a few of its tries.
    const deadline = Date.now() + 20_000;
    while (!builds.app.output().includes(`the database answers again; build ${buildId} goes on`)) {
      if (Date.now() > deadline) throw new Error("the executor never wrote again after the database came back");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const build = (await (await builds.get(`/builds/${buildId}`)).json()) as BuildJson;
    expect(build.status).toBe("failed");
    expect(build.failure_message).toBe("Failed elsewhere.");
    expect(build.stages.map((stage) => [stage.name, stage.status])).toEqual([
      ["checkout", "succeeded"],
      ["install", "failed"],
      ["test", "skipped"],
      ["start", "skipped"],
      ["healthcheck", "skipped"],
    ]);
    expect((await pidsOfBuild(builds, buildId)).filter(isProcessAlive)).toEqual([]);
  });

  it("what is left unwritten when the server stops meanwhile is found by its recovery at the next start", {
    timeout: 90_000,
  }, async () => {
    const buildId = await buildWhoseStageEndsWithoutDatabase(
      ["base_mod", "pausing_install"],
      "install",
      "install over",
      async () => {
        earlier = builds.app;
        await earlier.stopProcess("SIGTERM");
      },
    );
    const restarted = await startAppServer({
      DATABASE_URL: database.databaseUrl,
      INSTANCE_NAME: "solo",
      BUILDS_CONFIG: builds.fixture.configFile,
    });
    builds = connectBuildsApp(restarted, builds.fixture, builds.authorization);
    const failed = await builds.waitForStatus(buildId, ["failed"], 30_000);
    expect(failed.failure_stage).toBe("recovery");
    expect(failed.failure_message).toBe("The server stopped while the build was installing; it was not resumed.");
    expect((await pidsOfBuild(builds, buildId)).filter(isProcessAlive)).toEqual([]);
  });
});
