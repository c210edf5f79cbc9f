import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type BuildJson,
  type BuildsApp,
  fixtureConfig,
  makeBuildsFixture,
  startBuildsApp,
  tearDownBuilds,
} from "../support/builds";
import { seedRates } from "../support/rates";
import { cpuSeconds, openStalledStream, type StalledStream } from "../support/sse";

const TOTAL = 40;
const PER_CLIENT = 25;

let builds: BuildsApp;
let slow: BuildJson;
const open: StalledStream[] = [];
beforeAll(async () => {
  builds = await startBuildsApp(
    makeBuildsFixture((fixture) => fixtureConfig(fixture)),
    {
      LOG_STREAMS_MAX: String(TOTAL),
      LOG_STREAMS_PER_CLIENT: String(PER_CLIENT),
      // The test speaks for other clients through X-Forwarded-For, which counts only from a trusted proxy.
      TRUSTED_PROXIES: "127.0.0.1",
    },
  );
  seedRates(builds.app, [{ date: "2026-11-20", dollar: "240.5" }]);
  // An install that waits a minute: its log stays open, so its streams do too.
  const created = (await (
    await builds.post({ repository: "demo", ref: "main", modules: ["slow_install"] })
  ).json()) as BuildJson;
  slow = await builds.waitForStatus(created.build_id, ["installing"]);
});
afterAll(async () => {
  for (const stream of open) stream.close();
  await tearDownBuilds(builds);
});

const streamUrl = () => `${builds.app.baseUrl}/builds/${slow.build_id}/logs/stream?stage=install`;

async function timeRateReads(count: number): Promise<number[]> {
  const times: number[] = [];
  for (let read = 0; read < count; read++) {
    const started = performance.now();
    const response = await builds.app.fetch("/rates/");
    expect(response.status).toBe(200);
    await response.arrayBuffer();
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b);
}

describe("GET /builds/{build_id}/logs/stream, many at once", () => {
  it("caps streams per client and in all with a 503 and Retry-After, and idle streams cost no work", async () => {
    const baseline = await timeRateReads(20);

    for (let stream = 0; stream < PER_CLIENT; stream++) open.push(await openStalledStream(streamUrl()));
    expect(open.every((stream) => stream.status === 200)).toBe(true);
    const overClient = await builds.app.fetch(`/builds/${slow.build_id}/logs/stream?stage=install`);
    expect(overClient.status).toBe(503);
    expect(overClient.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(overClient.headers.get("content-type")).toBe("application/problem+json");
    expect((await overClient.json()).detail).toMatch(/LOG_STREAMS_PER_CLIENT/);

    // Another client address, forwarded by the (trusted) proxy, fills the server's total.
    const other = { "X-Forwarded-For": "192.0.2.7" };
    for (let stream = PER_CLIENT; stream < TOTAL; stream++) open.push(await openStalledStream(streamUrl(), other));
    expect(open.every((stream) => stream.status === 200)).toBe(true);
    const overTotal = await builds.app.fetch(`/builds/${slow.build_id}/logs/stream?stage=install`, {
      headers: { "X-Forwarded-For": "192.0.2.8" },
    });
    expect(overTotal.status).toBe(503);
    expect(overTotal.headers.get("retry-after")).toMatch(/^\d+$/);
    expect((await overTotal.json()).detail).toMatch(/LOG_STREAMS_MAX/);

    // With every stream open and waiting, the server does (almost) nothing: no polling of the database.
    const cpuBefore = cpuSeconds(builds.app.pid);
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    const idleCpu = cpuSeconds(builds.app.pid) - cpuBefore;
    const loaded = await timeRateReads(20);
    const median = (times: number[]) => times[Math.floor(times.length / 2)];
    console.info(
      `${TOTAL} open streams: server CPU ${idleCpu.toFixed(2)} s over 5 s idle; GET /rates/ median ${median(baseline).toFixed(1)} ms ` +
        `before, ${median(loaded).toFixed(1)} ms with them (slowest ${loaded.at(-1)!.toFixed(1)} ms)`,
    );
    expect(idleCpu).toBeLessThan(0.5);
    expect(median(loaded)).toBeLessThan(Math.max(3 * median(baseline), 50));

    // A closed stream gives its slot back.
    open.pop()!.close();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const again = await openStalledStream(streamUrl(), { "X-Forwarded-For": "192.0.2.8" });
    open.push(again);
    expect(again.status).toBe(200);
  });

  it("sends new log bytes as they are written and ends when the stage ends, without polling", async () => {
    for (const stream of open.splice(0)) stream.close();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const started = performance.now();
    const live = await builds.app.fetch(`/builds/${slow.build_id}/logs/stream?stage=install`, {
      headers: { "X-Forwarded-For": "192.0.2.9" },
    });
    expect(live.status).toBe(200);
    const reader = live.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while (!text.includes("waiting")) text += (await reader.read()).value ?? "";
    // Canceling the build ends the install stage: the end event follows at once, not on a poll.
    const cancel = await builds.app.fetch(`/builds/${slow.build_id}/cancel`, {
      method: "POST",
      headers: builds.authorization,
    });
    expect(cancel.status).toBeLessThan(300);
    while (!text.includes("event: end")) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
    }
    expect(text).toMatch(/event: end\nid: \d+\ndata: \{"stage":"install","status":"canceled"/);
    expect(performance.now() - started).toBeLessThan(15_000);
  });
});
