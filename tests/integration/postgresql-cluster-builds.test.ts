import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bodyDigestOf, peerAddressee, signPeerRequest } from "@/lib/cluster/peer-auth";
import { resetEnvCache } from "@/lib/server/env";
import { type BuildJson, type BuildsApp, expectAllDead, pidsOfBuild } from "../support/builds";
import { type BuilderPair, readUntil, startBuilderPair } from "../support/cluster";
import { queryDatabase } from "../support/database";
import { TEST_NEXTAUTH_SECRET } from "../support/postgresql";

/**
 * PostgreSQL only (project integration-postgresql): a build's logs and the actions on its runtime work through
 * any instance (lib/cluster/forwarding.ts). Two instances on one database: `alpha` runs builds (one slot), `beta`
 * runs none (max_concurrent_builds: 0) and forwards what concerns alpha's builds to alpha's INSTANCE_URL, signed.
 */
let pair: BuilderPair;
let alpha: BuildsApp;
let beta: BuildsApp;

beforeAll(async () => {
  pair = await startBuilderPair();
  ({ alpha, beta } = pair);
});
afterAll(() => pair?.stop());

async function waitForLog(buildId: string, stage: string, text: string): Promise<Response> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const response = await beta.get(`/builds/${buildId}/logs?stage=${stage}`);
    if (response.status === 200 && (await response.clone().json()).content.includes(text)) return response;
    if (Date.now() > deadline) throw new Error(`the ${stage} log of ${buildId} never showed ${text} through beta`);
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
}

describe("a build on alpha, through beta", () => {
  let installing: BuildJson;

  it("is run by alpha, which beta's view names as its host", async () => {
    const response = await beta.post({ repositories: [{ repository: "demo" }], modules: ["base_mod", "slow_install"] });
    expect(response.status).toBe(202);
    installing = await beta.waitForStatus((await response.json()).build_id, ["installing"]);
    expect(installing.host).toBe("alpha");
  });

  it("GET /builds/{id}/logs and /logs/raw: read through beta from alpha's disk", async () => {
    const window = await waitForLog(installing.build_id, "install", "waiting");
    expect(window.headers.get("x-build-host")).toBe("alpha");
    const raw = await beta.get(`/builds/${installing.build_id}/logs/raw?stage=install`);
    expect(raw.status).toBe(200);
    expect(raw.headers.get("content-disposition")).toMatch(/attachment; filename=/);
    expect(await raw.text()).toContain(`for build ${installing.build_id}`);
    // alpha answers the same bytes itself.
    const direct = await alpha.get(`/builds/${installing.build_id}/logs/raw?stage=install`);
    expect(direct.headers.get("x-build-host")).toBeNull();
  });

  it("GET /builds/{id}/logs/stream: followed live through beta, and ended by a cancel through beta", async () => {
    const stream = await beta.get(`/builds/${installing.build_id}/logs/stream?stage=install`);
    expect(stream.status).toBe(200);
    expect(stream.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(stream.headers.get("x-build-host")).toBe("alpha");
    const reading = readUntil(stream, (text) => text.includes("event: end"));
    const pids = await pidsOfBuild(beta, installing.build_id);
    expect(pids.length).toBeGreaterThan(0);

    const canceled = await beta.app.fetch(`/builds/${installing.build_id}/cancel`, {
      method: "POST",
      headers: beta.authorization,
    });
    expect(canceled.status).toBe(200);
    expect(canceled.headers.get("x-build-host")).toBe("alpha");
    expect((await canceled.json()).status).toBe("canceled");
    await expectAllDead(pids);
    const events = await reading;
    expect(events).toContain("data: waiting");
    expect(events).toMatch(/event: end\n/);
  });

  it("DELETE /builds/{id} through beta destroys alpha's runtime", async () => {
    const created = await (await beta.post({ repositories: [{ repository: "demo" }], modules: ["base_mod"] })).json();
    const running = await beta.waitForStatus(created.build_id, ["running"]);
    expect(running.host).toBe("alpha");
    const pids = await pidsOfBuild(beta, created.build_id);
    const deleted = await beta.app.fetch(`/builds/${created.build_id}`, {
      method: "DELETE",
      headers: beta.authorization,
    });
    expect(deleted.status).toBe(200);
    expect((await deleted.json()).status).toBe("destroyed");
    await expectAllDead(pids);
  });

  it("refuses an action forwarded without credentials, and a request with a forged instance signature", async () => {
    expect((await beta.app.fetch(`/builds/${installing.build_id}`, { method: "DELETE" })).status).toBe(401);
    const forged = await alpha.get(`/builds/${installing.build_id}/logs`, {
      headers: {
        "x-instance-from": "beta",
        "x-instance-to": "alpha 000000000000000000000000",
        "x-instance-timestamp": String(Math.floor(Date.now() / 1000)),
        "x-instance-nonce": "0".repeat(32),
        "x-instance-body-sha256": bodyDigestOf(),
        "x-instance-user": "",
        "x-instance-client": "127.0.0.1",
        "x-instance-signature": `v3=${"0".repeat(64)}`,
      },
    });
    expect(forged.status).toBe(401);
    expect((await forged.json()).detail).toMatch(/signature does not match/);
  });

  it("serves a signed request once: the same headers sent again within their 30 s are refused", async () => {
    // Signed here as beta would sign it, with the key every instance of the test cluster shares.
    const path = `/builds/${installing.build_id}/logs?stage=install`;
    process.env.NEXTAUTH_SECRET = TEST_NEXTAUTH_SECRET;
    resetEnvCache();
    const [{ processId }] = queryDatabase<{ processId: string }>(
      alpha.app,
      `SELECT "processId" FROM "Instance" WHERE "name" = 'alpha'`,
    );
    const toAlpha = peerAddressee("alpha", processId);
    const headers = signPeerRequest("GET", path, "beta", toAlpha, null, "127.0.0.1");
    expect((await alpha.app.fetch(path, { headers })).status).toBe(200);
    const replayed = await alpha.app.fetch(path, { headers });
    expect(replayed.status).toBe(401);
    expect((await replayed.json()).detail).toMatch(/nonce was already used/);
    // A fresh signature of the same request is served: only the copy is refused.
    expect(
      (await alpha.app.fetch(path, { headers: signPeerRequest("GET", path, "beta", toAlpha, null, "127.0.0.1") }))
        .status,
    ).toBe(200);
    // Signed for another instance (beta itself), or for alpha's process before a restart: refused by alpha.
    for (const to of [peerAddressee("beta", processId), peerAddressee("alpha", "0".repeat(24))]) {
      const elsewhere = await alpha.app.fetch(path, {
        headers: signPeerRequest("GET", path, "beta", to, null, "127.0.0.1"),
      });
      expect(elsewhere.status).toBe(401);
      expect((await elsewhere.json()).detail).toMatch(
        /signed for another instance, or for this one before it restarted/,
      );
    }
  });

  it("answers 503 naming the host when alpha is down", async () => {
    await alpha.app.stopProcess("SIGKILL");
    const response = await beta.get(`/builds/${installing.build_id}/logs?stage=install`);
    expect(response.status).toBe(503);
    expect(response.headers.get("content-type")).toMatch(/application\/problem\+json/);
    expect((await response.json()).detail).toMatch(
      new RegExp(
        `Build ${installing.build_id} is hosted by alpha \\(http://127\\.0\\.0\\.1:\\d+\\), which does not answer`,
      ),
    );
  });
});
