import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AppServer, startAppServer } from "../support/app-server";
import {
  type BuildJson,
  type BuildsApp,
  type BuildsFixture,
  connectBuildsApp,
  expectAllDead,
  fixtureUids,
  isProcessAlive,
  makeBuildsFixture,
  pidsOfBuild,
} from "../support/builds";
import { queryDatabase } from "../support/database";
import { createTestDatabase, dropTestDatabase } from "../support/postgresql";
import { registerAndGetToken } from "../support/users";

/**
 * PostgreSQL only (project integration-postgresql): builder hosts sharing one database. Two instances
 * of the built app, one build slot each, each with its own builds_root, ports and build uids, claim the queued
 * builds from the database. A host killed mid-build is noticed by the other once its heartbeat is older than
 * INSTANCE_LOST_AFTER_SECONDS (6 s here, 30 s by default); the builds it had in progress fail naming it, and
 * when it comes back it cleans up what it left. An instance whose shared builds settings differ refuses to start.
 */
const LOST_AFTER_SECONDS = "6";

type HostName = "builder-a" | "builder-b";

/** One host's configuration: its own builds_root, ports and uids; everything else the same on both. */
function hostConfig(
  fixture: Omit<BuildsFixture, "configFile">,
  own: { name: string; ports: { start: number; end: number } },
  ttlMax = 86400,
) {
  return `
builds_root: ${path.join(fixture.root, `builds-${own.name}`)}
max_concurrent_builds: 1
ports: { start: ${own.ports.start}, end: ${own.ports.end} }
reaper_interval_seconds: 0.5
ttl: { default_seconds: 3600, min_seconds: 60, max_seconds: ${ttlMax}, choices: [3600] }
limits: { live_per_user: 100, queued_per_user: 50 }
stage_timeout_seconds: 120
preview_url: "http://{build_id}.{host}.localhost:{port}/"
runtime:
  driver: process
  run_as_uids: ${JSON.stringify(fixtureUids(own.ports))}
  install: 'echo pid=$$; case ",$MODULES," in *,slow_install,*) echo waiting; exec sleep 120;; esac'
  test: "true"
  start: node stages/server.mjs
  healthcheck: { path: "/", timeout_seconds: 30 }
repositories:
  - alias: demo
    url: ./repo
    default_ref: main
    modules_path: addons
    module_manifest: manifest.json
`;
}

let fixture: BuildsFixture;
let databaseUrl: string;
const servers: AppServer[] = [];
const hosts = new Map<HostName, BuildsApp>();
let authorization: Record<string, string>;
let configB: string;

function startHost(name: string, configFile: string): Promise<AppServer> {
  return startAppServer({
    DATABASE_URL: databaseUrl,
    BUILDS_CONFIG: configFile,
    INSTANCE_NAME: name,
    INSTANCE_LOST_AFTER_SECONDS: LOST_AFTER_SECONDS,
  }).then((server) => {
    servers.push(server);
    return server;
  });
}

/** The instance a build ran on: its runtime, logs and processes are there. */
function hostOf(build: BuildJson): BuildsApp {
  return hosts.get(build.host as HostName)!;
}

beforeAll(async () => {
  fixture = makeBuildsFixture((partial) =>
    hostConfig(partial, { name: "a", ports: { start: partial.ports.start, end: partial.ports.start + 24 } }),
  );
  configB = path.join(fixture.root, "builds-b.config.yaml");
  fs.writeFileSync(
    configB,
    hostConfig(fixture, { name: "b", ports: { start: fixture.ports.start + 25, end: fixture.ports.end } }),
  );
  databaseUrl = createTestDatabase();
  const a = await startHost("builder-a", fixture.configFile);
  const b = await startHost("builder-b", configB);
  ({ authorization } = await registerAndGetToken(a));
  hosts.set("builder-a", connectBuildsApp(a, fixture, authorization));
  hosts.set("builder-b", connectBuildsApp(b, fixture, authorization));
});

afterAll(async () => {
  try {
    const any = [...hosts.values()].at(-1);
    if (any) {
      const { builds } = (await (await any.get("/builds?limit=100")).json()) as { builds: BuildJson[] };
      for (const build of builds.filter(
        (build) => build.host && !["destroyed", "failed", "canceled"].includes(build.status),
      )) {
        await hostOf(build).app.fetch(`/builds/${build.build_id}`, { method: "DELETE", headers: authorization });
      }
    }
  } finally {
    for (const server of servers.reverse()) await server.stop();
    if (databaseUrl) dropTestDatabase(databaseUrl);
    if (fixture) fs.rmSync(fixture.root, { recursive: true, force: true });
  }
});

describe("two builder hosts with one slot each", () => {
  it("run 20 builds posted alternately to both: all reach running, on both hosts, never two at once on one", {
    timeout: 400_000,
  }, async () => {
    const posted: string[] = [];
    for (let index = 0; index < 20; index++) {
      const through = hosts.get(index % 2 === 0 ? "builder-a" : "builder-b")!;
      const response = await through.post({ repository: "demo", ref: "main", modules: ["base_mod"] });
      expect(response.status).toBe(202);
      posted.push(((await response.json()) as BuildJson).build_id);
    }
    const a = hosts.get("builder-a")!;
    const builds: BuildJson[] = [];
    for (const id of posted) builds.push(await a.waitForStatus(id, ["running", "failed"], 300_000));
    expect(builds.filter((build) => build.status !== "running").map((build) => build.failure_message)).toEqual([]);
    expect(new Set(builds.map((build) => build.host))).toEqual(new Set(["builder-a", "builder-b"]));

    for (const host of ["builder-a", "builder-b"]) {
      // Claimed (started_at) to running (finished_at): one host's intervals never overlap with one slot.
      const intervals = builds
        .filter((build) => build.host === host)
        .map((build) => [Date.parse(build.started_at as string), Date.parse(build.finished_at as string)])
        .sort(([x], [y]) => x - y);
      for (let index = 1; index < intervals.length; index++)
        expect(intervals[index][0]).toBeGreaterThanOrEqual(intervals[index - 1][1]);
    }
    for (const build of builds) {
      // {host} in preview_url is the host part of the instance running it; each host leases its own ports.
      const url = new URL(build.preview_url!);
      expect(url.hostname).toBe(`${build.build_id}.${build.host}.localhost`);
      const ownRange =
        build.host === "builder-a"
          ? [fixture.ports.start, fixture.ports.start + 24]
          : [fixture.ports.start + 25, fixture.ports.end];
      expect(Number(url.port)).toBeGreaterThanOrEqual(ownRange[0]);
      expect(Number(url.port)).toBeLessThanOrEqual(ownRange[1]);
      expect(await (await fetch(`http://127.0.0.1:${url.port}/`)).text()).toBe(
        `build ${build.build_id} modules base_mod`,
      );
    }
    for (const build of builds) {
      const destroyed = await hostOf(build).app.fetch(`/builds/${build.build_id}`, {
        method: "DELETE",
        headers: authorization,
      });
      expect(destroyed.status).toBe(200);
    }
  });

  it("refuse a third instance whose shared builds settings differ, naming the setting and the live instance", {
    timeout: 120_000,
  }, async () => {
    const configC = path.join(fixture.root, "builds-c.config.yaml");
    fs.writeFileSync(
      configC,
      hostConfig(fixture, { name: "c", ports: { start: fixture.ports.start + 40, end: fixture.ports.end } }, 7200),
    );
    const refused = await startHost("builder-c", configC).then(
      () => null,
      (error: Error) => error.message,
    );
    expect(refused).toMatch(/exited with code 1/);
    expect(refused).toMatch(
      /builds-c\.config\.yaml: ttl\.max_seconds differs from the live instance builder-[ab]'s \(here 7200, there 86400\)/,
    );
  });
});

describe("a builder host that dies", () => {
  it("has its build in progress failed by the other, naming it; its queued build runs elsewhere; back, it cleans up", {
    timeout: 300_000,
  }, async () => {
    const first = (await (
      await hosts.get("builder-a")!.post({ repository: "demo", ref: "main", modules: ["slow_install"] })
    ).json()) as BuildJson;
    const lostBuild = await hosts.get("builder-a")!.waitForStatus(first.build_id, ["installing"], 60_000);
    const victimName = lostBuild.host as HostName;
    const survivorName: HostName = victimName === "builder-a" ? "builder-b" : "builder-a";
    const victim = hosts.get(victimName)!;
    const survivor = hosts.get(survivorName)!;
    // The survivor's slot is taken too, so that the next build waits in the queue.
    const busy = (await (
      await survivor.post({ repository: "demo", ref: "main", modules: ["slow_install"] })
    ).json()) as BuildJson;
    expect((await survivor.waitForStatus(busy.build_id, ["installing"], 60_000)).host).toBe(survivorName);
    const queuedResponse = await victim.post({ repository: "demo", ref: "main", modules: ["extra_mod"] });
    const queued = (await queuedResponse.json()) as BuildJson;
    expect(queued).toMatchObject({ status: "queued", host: null, queue_position: 1 });
    let pids: number[] = [];
    while (pids.length === 0) pids = await pidsOfBuild(victim, first.build_id);

    // SIGKILL: the host's server is gone at once; the stage it ran lives in its own process group.
    await victim.app.stopProcess("SIGKILL");
    expect(pids.every(isProcessAlive)).toBe(true);
    await survivor.app.fetch(`/builds/${busy.build_id}/cancel`, { method: "POST", headers: authorization });

    // The poster's death lost nothing: the survivor claims the queued build once its slot is free.
    const ran = await survivor.waitForStatus(queued.build_id, ["running", "failed"], 120_000);
    expect(ran).toMatchObject({ status: "running", host: survivorName });
    const failed = await survivor.waitForStatus(first.build_id, ["failed"], 120_000);
    expect(failed).toMatchObject({ failure_stage: "recovery", host: victimName, preview_url: null });
    expect(failed.failure_message).toMatch(
      new RegExp(`^The host ${victimName} running the build was lost: its last heartbeat was at `),
    );
    expect(failed.stages.map((stage) => [stage.name, stage.status])).toEqual([
      ["checkout", "succeeded"],
      ["install", "failed"],
      ["test", "skipped"],
      ["start", "skipped"],
      ["healthcheck", "skipped"],
    ]);
    // Its processes and port are the lost host's, which is not there to stop them.
    expect(pids.every(isProcessAlive)).toBe(true);

    // Back under the same name: it stops what it left and frees the port.
    const back = await startHost(victimName, victimName === "builder-a" ? fixture.configFile : configB);
    hosts.set(victimName, connectBuildsApp(back, fixture, authorization));
    await expectAllDead(pids, 30_000);
    const deadline = Date.now() + 30_000;
    let left: { port: number | null; runtimeHandle: string | null }[] = [];
    do {
      left = queryDatabase(back, `SELECT "port", "runtimeHandle" FROM "Build" WHERE "id" = (:'params'::json->>0)`, [
        first.build_id,
      ]);
      if (left[0]?.port === null) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    } while (Date.now() < deadline);
    expect(left).toEqual([{ port: null, runtimeHandle: null }]);
  });
});
