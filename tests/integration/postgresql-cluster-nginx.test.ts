import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BuildJson, expectAllDead, pidsOfBuild } from "../support/builds";
import { type BuilderPair, readUntil, startBuilderPair } from "../support/cluster";
import { type NginxServer, startNginx } from "../support/nginx";

/**
 * PostgreSQL only (project integration-postgresql): the shipped nginx configuration (deploy/nginx/bcv-rates.conf)
 * in front of two instances, its upstream holding both. nginx spreads requests over them without stickiness: a
 * build's log reads and live streams work whichever instance gets them (beta forwards to alpha, which runs every
 * build), and when an instance dies the reads go on through the other.
 */
let pair: BuilderPair;
let nginx: NginxServer;

beforeAll(async () => {
  pair = await startBuilderPair();
  const portOf = (app: { baseUrl: string }) => Number(new URL(app.baseUrl).port);
  nginx = await startNginx({ appPorts: [portOf(pair.alpha.app), portOf(pair.beta.app)] });
});
afterAll(async () => {
  await nginx?.stop();
  await pair?.stop();
});

const throughNginx = (pathname: string, init?: RequestInit) => fetch(new URL(pathname, nginx.baseUrl), init);

describe("nginx in front of two instances", () => {
  let build: BuildJson;

  it("spreads a build's log reads over both instances, each answering the same log", async () => {
    const created = await throughNginx("/builds", {
      method: "POST",
      headers: { ...pair.beta.authorization, "Content-Type": "application/json" },
      body: JSON.stringify({ repositories: [{ repository: "demo" }], modules: ["base_mod", "slow_install"] }),
    });
    expect(created.status).toBe(202);
    build = await pair.beta.waitForStatus((await created.json()).build_id, ["installing"]);
    const deadline = Date.now() + 20_000;
    while (
      !(await (await pair.alpha.get(`/builds/${build.build_id}/logs?stage=install`)).json()).content.includes("waiting")
    ) {
      if (Date.now() > deadline) throw new Error("the install log never said waiting");
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
    const forwardedBy: (string | null)[] = [];
    for (let i = 0; i < 4; i++) {
      const response = await throughNginx(`/builds/${build.build_id}/logs?stage=install`);
      expect(response.status).toBe(200);
      expect((await response.json()).content).toContain("waiting");
      forwardedBy.push(response.headers.get("x-build-host"));
    }
    // Round robin: some reads reached alpha itself, the others beta, which passed them to alpha.
    expect(forwardedBy).toContain("alpha");
    expect(forwardedBy).toContain(null);
  });

  it("passes live logs through unbuffered from either instance, until a cancel through nginx ends them", async () => {
    const streams = [0, 1].map(() => throughNginx(`/builds/${build.build_id}/logs/stream?stage=install`));
    const opened = await Promise.all(streams);
    for (const stream of opened) expect(stream.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(opened.map((stream) => stream.headers.get("x-build-host")).sort()).toEqual(["alpha", null].sort());
    // Each shows what the stage wrote before the end: the events arrive as they are made, not at the end.
    const reading = opened.map((stream) => readUntil(stream, (text) => text.includes("event: end")));
    const pids = await pidsOfBuild(pair.alpha, build.build_id);
    const canceled = await throughNginx(`/builds/${build.build_id}/cancel`, {
      method: "POST",
      headers: pair.beta.authorization,
    });
    expect(canceled.status).toBe(200);
    await expectAllDead(pids);
    for (const events of await Promise.all(reading)) {
      expect(events).toContain("data: waiting");
      expect(events).toMatch(/event: end\n/);
    }
  });

  it("goes on through the other instance when one is killed", async () => {
    await pair.beta.app.stopProcess("SIGKILL");
    for (let i = 0; i < 4; i++) {
      expect((await throughNginx(`/builds/${build.build_id}/logs?stage=install`)).status).toBe(200);
      expect((await throughNginx("/readyz")).status).toBe(200);
    }
  });
});
