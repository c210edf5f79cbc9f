import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePortBelowEphemeral } from "../support/app-server";
import { waitFor } from "../support/auto-builds";
import {
  type BuildJson,
  type BuildsApp,
  fixtureUids,
  makeBuildsFixture,
  startBuildsApp,
  tearDownBuilds,
} from "../support/builds";
import { type Gateway, ODOO_LIKE_PREVIEW, requestThrough, startGateway } from "../support/gateway";

/**
 * Visits through the gateway are activity: with sleep_after_idle_seconds, a preview that people keep
 * visiting stays awake while one nobody visits goes to sleep, and a visit wakes it again. The real nginx of
 * `npm run gateway` in front of the built app, on loopback.
 */
const DOMAIN = "preview.localhost";
const IDLE_SECONDS = 6;
let builds: BuildsApp;
let gateway: Gateway;
let port: number;
const previews: BuildJson[] = [];

beforeAll(async () => {
  port = await freePortBelowEphemeral();
  const fixture = makeBuildsFixture(
    (f) => `
builds_root: ${f.buildsRoot}
max_concurrent_builds: 2
ports: { start: ${f.ports.start}, end: ${f.ports.end} }
sleep_after_idle_seconds: ${IDLE_SECONDS}
gateway: { domain: ${DOMAIN}, port: ${port} }
runtime:
  driver: process
  run_as_uids: ${JSON.stringify(fixtureUids(f.ports))}
  start: ${ODOO_LIKE_PREVIEW}
  healthcheck: { path: /web/login, timeout_seconds: 30 }
repositories:
  - { alias: demo, url: ./repo, default_ref: main, modules_path: addons, module_manifest: manifest.json }
`,
  );
  builds = await startBuildsApp(fixture, { TRUSTED_PROXIES: "127.0.0.1" });
  gateway = await startGateway({
    port,
    appUrl: builds.app.baseUrl,
    env: { DATABASE_URL: builds.app.databaseUrl, BUILDS_CONFIG: fixture.configFile },
    dataDir: builds.app.dataDir,
  });
  for (let index = 0; index < 2; index++) {
    const response = await builds.post({ repositories: [{ repository: "demo" }], modules: ["base_mod"] });
    previews.push((await response.json()) as BuildJson);
  }
  for (const [index, build] of previews.entries())
    previews[index] = await builds.waitForStatus(build.build_id, ["running"], 60_000);
}, 180_000);
afterAll(async () => {
  await gateway?.stop();
  await tearDownBuilds(builds);
});

const statusOf = async (buildId: string) =>
  ((await (await builds.get(`/builds/${buildId}`)).json()) as BuildJson).status;

describe("visits through the gateway keep a preview awake (sleep_after_idle_seconds)", () => {
  it("puts the preview nobody visits to sleep, keeps the visited one running, and a visit wakes it", async () => {
    const [visited, idle] = previews;
    const visitedName = `${visited.build_id}.${DOMAIN}:${port}`;
    const until = Date.now() + (IDLE_SECONDS + 6) * 1000;
    while (Date.now() < until) {
      const answer = await requestThrough(port, { host: visitedName });
      expect(answer.status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
    expect(await statusOf(idle.build_id)).toBe("sleeping");
    expect(await statusOf(visited.build_id)).toBe("running");
    // A visit to the idle one wakes it.
    const visit = await requestThrough(port, { host: `${idle.build_id}.${DOMAIN}:${port}` });
    expect(visit.status).toBe(503);
    await waitFor("the idle preview to wake", async () => (await statusOf(idle.build_id)) === "running", 30_000);
  });
});
