import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BuildsApp } from "../support/builds";
import { type BuilderPair, startBuilderPair } from "../support/cluster";

/**
 * PostgreSQL only (project integration-postgresql): GET /metrics on two instances of one database. The cluster's
 * figures (builds by status, the queue, instances, rates, webhooks) come from one instance at a time, the live one
 * whose name sorts first: summed over the instances, as a dashboard does, they count every build once. Each
 * instance gives its own slots.
 */
const METRICS_TOKEN = "metrics-token-for-the-cluster-test-0123";

let pair: BuilderPair;

beforeAll(async () => {
  pair = await startBuilderPair({ env: { METRICS_TOKEN } });
});
afterAll(() => pair?.stop());

async function scrape(instance: BuildsApp): Promise<string> {
  const response = await instance.app.fetch("/metrics", { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } });
  expect(response.status).toBe(200);
  return response.text();
}

/** The sum over the instances' answers of one series, as `sum(series)` in Prometheus. */
function summed(texts: string[], series: string): number {
  let sum = 0;
  for (const text of texts) {
    const line = text.split("\n").find((candidate) => candidate.startsWith(`${series} `));
    if (line !== undefined) sum += Number(line.slice(series.length + 1));
  }
  return sum;
}

describe("GET /metrics on two instances", () => {
  it("gives the cluster's figures from one instance only, so that their sum counts each build once", {
    timeout: 60_000,
  }, async () => {
    const { alpha, beta } = pair;
    // alpha's one slot takes the first; the second waits in the queue.
    const first = await (await beta.post({ repositories: [{ repository: "demo" }], modules: ["slow_install"] })).json();
    await beta.waitForStatus(first.build_id, ["installing"]);
    const second = await (await beta.post({ repositories: [{ repository: "demo" }], modules: ["base_mod"] })).json();
    await beta.waitForStatus(second.build_id, ["queued"]);

    const texts = [await scrape(alpha), await scrape(beta)];
    expect(texts.map((text) => /^cluster_figures_reporter 1$/m.test(text))).toEqual([true, false]);
    expect(texts[1]).not.toMatch(/^builds\{|^builds_queue_length |^instances_live /m);
    expect(summed(texts, "builds_queue_length")).toBe(1);
    expect(summed(texts, 'builds{status="queued"}')).toBe(1);
    expect(summed(texts, 'builds{status="installing"}')).toBe(1);
    expect(summed(texts, "instances_live")).toBe(2);
    expect(texts[0]).toMatch(/^instance_heartbeat_age_seconds\{instance_name="beta"\} /m);
    // Each instance's own slots: alpha's one is used, beta has none.
    expect(summed(texts, 'build_slots{state="used"}')).toBe(1);
    expect(summed(texts, 'build_slots{state="free"}')).toBe(0);
  });
});
