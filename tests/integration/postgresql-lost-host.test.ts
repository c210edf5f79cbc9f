import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AppServer, freePort, startAppServer } from "../support/app-server";
import { type BuildJson, type BuildsApp, expectAllDead, isProcessAlive } from "../support/builds";
import { type BuilderPair, startBuilderPair } from "../support/cluster";
import { queryDatabase } from "../support/database";

/**
 * PostgreSQL only (project integration-postgresql): a build whose host never comes back. `alpha` runs a preview and
 * is killed (SIGKILL); once its heartbeat is older than INSTANCE_LOST_AFTER_SECONDS it is lost. Through `beta`, the
 * build's logs answer at once with a 503 naming the host and its last heartbeat (they are on alpha's disk), and
 * DELETE destroys the build in the database (202: the runtime could not be reached), and a preview that reaches
 * its time to live is expired; when alpha does come back under its name it removes what it left.
 */
const LOST_AFTER_SECONDS = "6";

let pair: BuilderPair;
let alpha: BuildsApp;
let beta: BuildsApp;
let alphaAgain: AppServer | undefined;

beforeAll(async () => {
  pair = await startBuilderPair({ env: { INSTANCE_LOST_AFTER_SECONDS: LOST_AFTER_SECONDS } });
  ({ alpha, beta } = pair);
});
afterAll(async () => {
  await alphaAgain?.stop();
  await pair?.stop();
});

function runtimeOf(buildId: string): { port: number | null; runtimeHandle: string | null } {
  return queryDatabase<{ port: number | null; runtimeHandle: string | null }>(
    beta.app,
    {
      sqlite: "",
      postgresql: `SELECT "port", "runtimeHandle" FROM "Build" WHERE "id" = :'params'::json->>0`,
    },
    [buildId],
  )[0];
}

describe("a build whose host was killed and is lost", () => {
  let running: BuildJson;
  // A second preview of alpha's, whose time to live runs out while alpha is away.
  let outliving: BuildJson;
  let pids: number[];

  /** The pids a preview's server prints in its start log. */
  async function previewPids(buildId: string): Promise<number[]> {
    const startLog = (await (await beta.get(`/builds/${buildId}/logs?stage=start`)).json()) as { content: string };
    return [...startLog.content.matchAll(/^pid=(\d+)$/gm)].map((match) => Number(match[1]));
  }

  it("answers its log reads through another instance with 503 naming the host and its last heartbeat", {
    timeout: 120_000,
  }, async () => {
    const created = await (await beta.post({ repositories: [{ repository: "demo" }], modules: ["base_mod"] })).json();
    running = await beta.waitForStatus(created.build_id, ["running"]);
    expect(running.host).toBe("alpha");
    const second = await (await beta.post({ repositories: [{ repository: "demo" }], modules: ["base_mod"] })).json();
    outliving = await beta.waitForStatus(second.build_id, ["running"]);
    expect(outliving.host).toBe("alpha");
    pids = [...(await previewPids(running.build_id)), ...(await previewPids(outliving.build_id))];
    expect(pids.length).toBeGreaterThan(1);
    expect(pids.every(isProcessAlive)).toBe(true);

    await alpha.app.stopProcess("SIGKILL");
    // Lost once its heartbeat is older than INSTANCE_LOST_AFTER_SECONDS: then no instance tries to reach it.
    const deadline = Date.now() + 60_000;
    let detail = "";
    while (!/unreachable/.test(detail)) {
      if (Date.now() > deadline) throw new Error(`alpha was never reported lost; last answer: ${detail}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
      const response = await beta.get(`/builds/${running.build_id}/logs`);
      expect(response.status).toBe(503);
      detail = (await response.json()).detail;
    }
    expect(detail).toMatch(
      new RegExp(
        `^Build ${running.build_id} is hosted by alpha, which is unreachable: its last heartbeat was at \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z\\.`,
      ),
    );
    for (const path of [`/logs/raw?stage=install`, `/logs/stream?stage=start`]) {
      const response = await beta.get(`/builds/${running.build_id}${path}`);
      expect(response.status).toBe(503);
      expect(response.headers.get("content-type")).toMatch(/application\/problem\+json/);
      expect((await response.json()).detail).toMatch(/hosted by alpha, which is unreachable/);
    }
  });

  it("a preview of the lost host that reaches its time to live is expired by another instance; its runtime stays recorded", {
    timeout: 60_000,
  }, async () => {
    // Its time to live runs out now (as if alpha had been away that long).
    queryDatabase(
      beta.app,
      { sqlite: "", postgresql: `UPDATE "Build" SET "expiresAt" = now() WHERE "id" = :'params'::json->>0` },
      [outliving.build_id],
    );
    const expired = await beta.waitForStatus(outliving.build_id, ["expired"], 30_000);
    expect(expired.status).toBe("expired");
    expect(beta.app.output()).toContain(`cluster: expired the previews of lost hosts: ${outliving.build_id}`);
    expect(runtimeOf(outliving.build_id).port).not.toBeNull();
    // Not the other preview, whose time to live goes on.
    expect((await (await beta.get(`/builds/${running.build_id}`)).json()).status).toBe("running");
  });

  it("DELETE through another instance: 202, destroyed in the database; its runtime, out of reach, stays recorded for its host", async () => {
    const deleted = await beta.app.fetch(`/builds/${running.build_id}`, {
      method: "DELETE",
      headers: beta.authorization,
    });
    expect(deleted.status).toBe(202);
    expect((await deleted.json()).status).toBe("destroyed");
    expect((await (await beta.get(`/builds/${running.build_id}`)).json()).status).toBe("destroyed");
    // Nobody could reach alpha's processes: they live on, and the build keeps what alpha needs to find them.
    expect(pids.every(isProcessAlive)).toBe(true);
    expect(runtimeOf(running.build_id).port).not.toBeNull();
    // Again: the build is destroyed already.
    expect(
      (await beta.app.fetch(`/builds/${running.build_id}`, { method: "DELETE", headers: beta.authorization })).status,
    ).toBe(202);
  });

  it("when its host comes back under its name, it removes what it left of the build", {
    timeout: 120_000,
  }, async () => {
    const port = await freePort();
    alphaAgain = await startAppServer({
      DATABASE_URL: beta.app.databaseUrl,
      BUILDS_CONFIG: alpha.fixture.configFile,
      INSTANCE_NAME: "alpha",
      INSTANCE_LOST_AFTER_SECONDS: LOST_AFTER_SECONDS,
      PORT: String(port),
      INSTANCE_URL: `http://127.0.0.1:${port}`,
    });
    await expectAllDead(pids, 30_000);
    for (const build of [running, outliving]) {
      const deadline = Date.now() + 30_000;
      while (runtimeOf(build.build_id).port !== null || runtimeOf(build.build_id).runtimeHandle !== null) {
        if (Date.now() > deadline)
          throw new Error(
            `alpha never cleared the runtime of ${build.build_id}: ${JSON.stringify(runtimeOf(build.build_id))}`,
          );
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }
    expect((await (await beta.get(`/builds/${running.build_id}`)).json()).status).toBe("destroyed");
    expect((await (await beta.get(`/builds/${outliving.build_id}`)).json()).status).toBe("expired");
  });
});
