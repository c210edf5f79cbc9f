import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAppServer } from "../support/app-server";
import {
  type BuildJson,
  type BuildsApp,
  type BuildsFixture,
  connectBuildsApp,
  makeBuildsFixture,
  startBuildsApp,
  tearDownBuilds,
} from "../support/builds";
import {
  composeFixtureConfig,
  dockerUnavailableReason,
  ensureTestImage,
  NOTHING_LEFT,
  resourcesOfBuild,
} from "../support/compose";

// Crashes and a Docker daemon that stops answering, with the compose driver against the real engine.
const unavailable = dockerUnavailableReason();

let fixture: BuildsFixture;
const servers: BuildsApp[] = [];
beforeAll(() => {
  if (unavailable) return;
  ensureTestImage();
  fixture = makeBuildsFixture((partial) => composeFixtureConfig(partial));
});
// Every server but the last shares the first one's database, which the first one's stop() removes: stop it last.
afterAll(async () => {
  const [first, ...later] = servers;
  try {
    await tearDownBuilds(later.at(-1) ?? first);
  } finally {
    for (const server of later.slice(0, -1)) await server.app.stop();
    if (later.length > 0) await first?.app.stop();
  }
});

async function restart(previous: BuildsApp, env: Record<string, string> = {}): Promise<BuildsApp> {
  const app = await startAppServer({
    BUILDS_CONFIG: fixture.configFile,
    DATABASE_URL: `file:${servers[0].app.databaseFile}`,
    ...env,
  });
  const next = connectBuildsApp(app, fixture, previous.authorization);
  servers.push(next);
  return next;
}

// Docker on a shared machine is slow at times: two builds and three server starts may take three minutes.
describe.skipIf(unavailable)("compose builds across a crash of the server", { timeout: 180_000 }, () => {
  it("SIGKILL mid-build, then restart: the interrupted build's project is found by its label and removed; a running build lives on", async () => {
    const first = await startBuildsApp(fixture);
    servers.push(first);
    // Side by side (max_concurrent_builds: 4): one reaches running while the other's install waits for a minute.
    const running = (await (await first.post({ repository: "demo", modules: ["base_mod"] })).json()) as BuildJson;
    const interrupted = (await (
      await first.post({ repository: "demo", modules: ["slow_install"] })
    ).json()) as BuildJson;
    const preview = (await first.waitForStatus(running.build_id, ["running"], 60_000)).preview_url!;
    await first.waitForStatus(interrupted.build_id, ["installing"], 60_000);
    const deadline = Date.now() + 30_000;
    while (resourcesOfBuild(interrupted.build_id).containers.length < 2 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(resourcesOfBuild(interrupted.build_id).containers.length).toBeGreaterThanOrEqual(2);

    await first.app.stopProcess("SIGKILL");
    // As if the crash came before anything was recorded: only the label can lead to the project now.
    const database = new Database(first.app.databaseFile);
    database
      .prepare(`UPDATE "Build" SET status = 'failed', "runtimeHandle" = NULL WHERE id = ?`)
      .run(interrupted.build_id);
    database.prepare(`UPDATE "BuildStage" SET handle = NULL WHERE "buildId" = ?`).run(interrupted.build_id);
    database.close();
    expect(resourcesOfBuild(interrupted.build_id).containers.length).toBeGreaterThanOrEqual(2);

    const second = await restart(first);
    expect(resourcesOfBuild(interrupted.build_id)).toEqual(NOTHING_LEFT);
    expect(await second.waitForStatus(running.build_id, ["running"])).toMatchObject({ preview_url: preview });
    expect((await fetch(preview)).status).toBe(200);
  });

  it("a daemon that does not answer: the service starts, says why, refuses new builds with 503 and keeps the running one", async () => {
    const before = servers.at(-1)!;
    await before.app.stopProcess("SIGTERM");
    const unreachable = await restart(before, { DOCKER_HOST: "unix:///nonexistent/docker.sock" });
    const config = await (await unreachable.get("/app-config")).json();
    expect(config.runtime).toMatchObject({ driver: "compose", ready: false });
    expect(config.runtime.reason).toMatch(/Docker daemon at unix:\/\/\/nonexistent\/docker.sock does not answer/);
    const refused = await unreachable.post({ repository: "demo", modules: ["base_mod"] });
    expect(refused.status).toBe(503);
    expect((await refused.json()).detail).toMatch(/compose runtime is not ready: The Docker daemon .* does not answer/);

    // Several reaper passes: a runtime the driver cannot see is not a dead one.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const { builds } = (await (await unreachable.get("/builds?status=running")).json()) as { builds: BuildJson[] };
    expect(builds).toHaveLength(1);
    expect((await fetch(builds[0].preview_url!)).status).toBe(200);

    await unreachable.app.stopProcess("SIGTERM");
    const back = await restart(unreachable);
    expect((await (await back.get(`/builds/${builds[0].build_id}`)).json()).status).toBe("running");
  });
});
