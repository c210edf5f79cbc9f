import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AppServer, startAppServer } from "../support/app-server";
import { type BuildsApp, fixtureConfig, makeBuildsFixture, startBuildsApp, tearDownBuilds } from "../support/builds";
import { queryDatabase } from "../support/database";

/**
 * GET /metrics: Prometheus's text format, only with the bearer token of METRICS_TOKEN, and not at all without the
 * setting. Requests by route pattern, builds and their stages, slots, rates' freshness; never a token or an
 * address in a label. On SQLite the one instance gives the cluster's figures too.
 */
const METRICS_TOKEN = "metrics-token-for-the-test-0123456789";

let builds: BuildsApp;
let without: AppServer;

beforeAll(async () => {
  const fixture = makeBuildsFixture((partial) => fixtureConfig(partial));
  [builds, without] = await Promise.all([startBuildsApp(fixture, { METRICS_TOKEN }), startAppServer()]);
});
afterAll(async () => {
  await tearDownBuilds(builds);
  await without?.stop();
});

const scrape = (app: AppServer, token = METRICS_TOKEN) =>
  app.fetch("/metrics", { headers: { Authorization: `Bearer ${token}` } });

/** The value of one sample (`name{labels} value`), or undefined when the text has none. */
function sample(text: string, series: string): number | undefined {
  const line = text.split("\n").find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe("GET /metrics", () => {
  it("answers 404 when METRICS_TOKEN is not set, whatever the request carries", async () => {
    expect((await without.fetch("/metrics")).status).toBe(404);
    expect((await scrape(without)).status).toBe(404);
  });

  it("answers 401 without the bearer token, or with another", async () => {
    const none = await builds.app.fetch("/metrics");
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect((await scrape(builds.app, `${METRICS_TOKEN}x`)).status).toBe(401);
    expect((await builds.app.fetch("/metrics", { headers: builds.authorization })).status).toBe(401);
  });

  it("counts requests by route pattern, method and status, with their durations", async () => {
    for (let i = 0; i < 3; i++) expect((await builds.get("/builds/0123456789abcdef")).status).toBe(404);
    await builds.get(`/builds/${"f".repeat(16)}/logs`);
    const response = await scrape(builds.app);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    const text = await response.text();
    expect(sample(text, 'http_requests_total{route="/builds/[build_id]",method="GET",status="404"}')).toBe(3);
    expect(
      sample(text, 'http_request_duration_seconds_count{route="/builds/[build_id]",method="GET",status="404"}'),
    ).toBe(3);
    expect(text).toContain('http_requests_total{route="/builds/[build_id]/logs",method="GET",');
    // No path, token or address reaches a label: a build's id, the bearer, the server's own address.
    expect(text).not.toContain("0123456789abcdef");
    expect(text).not.toContain(METRICS_TOKEN);
    expect(text).not.toMatch(/127\.0\.0\.1|Bearer/);
    expect(text).toMatch(/^process_cpu_seconds_total /m);
  });

  it("gives builds by status, the queue, slots and stage durations, and the rates' freshness", {
    timeout: 60_000,
  }, async () => {
    const created = await (await builds.post({ repositories: [{ repository: "demo" }], modules: ["base_mod"] })).json();
    await builds.waitForStatus(created.build_id, ["running"]);
    queryDatabase(
      builds.app,
      `INSERT INTO "CurrencyRate" ("date", "currency", "rate", "source", "fetchedAt", "updatedAt")
       VALUES ('2026-11-20', 'USD', '236.4587', 'home-page', '2026-11-20T20:00:00.000Z', '2026-11-20T20:00:00.000Z')`,
    );
    const text = await (await scrape(builds.app)).text();
    expect(sample(text, "cluster_figures_reporter")).toBe(1);
    expect(sample(text, "metrics_database_up")).toBe(1);
    expect(sample(text, 'builds{status="running"}')).toBe(1);
    expect(sample(text, "builds_queue_length")).toBe(0);
    expect(sample(text, 'build_slots{state="used"}')).toBe(0);
    expect(sample(text, 'build_slots{state="free"}')).toBe(2);
    for (const stage of ["checkout", "install", "test", "start", "healthcheck"]) {
      expect(sample(text, `build_stage_duration_seconds_count{stage="${stage}",status="succeeded"}`)).toBe(1);
    }
    expect(sample(text, "build_log_streams_open")).toBe(0);
    expect(sample(text, "instances_live")).toBe(1);
    const age = sample(text, 'rates_value_date_age_seconds{currency="USD"}')!;
    expect(age).toBeCloseTo((Date.now() - Date.parse("2026-11-20T00:00:00Z")) / 1000, -2);
    expect(sample(text, "webhook_deliveries_backlog")).toBe(0);

    // The background jobs: the reaper and the heartbeat ran at start; the heartbeat beats next within 5 s.
    for (const job of ["build reaper", "instance heartbeat"]) {
      expect(sample(text, `background_job_runs_total{job_name="${job}",outcome="success"}`)).toBeGreaterThan(0);
      expect(sample(text, `background_job_runs_total{job_name="${job}",outcome="failure"}`)).toBe(0);
    }
    const nextBeat = sample(text, 'background_job_next_run_timestamp_seconds{job_name="instance heartbeat"}');
    if (sample(text, 'background_job_running{job_name="instance heartbeat"}') === 0) {
      expect(nextBeat! * 1000).toBeGreaterThan(Date.now() - 1_000);
      expect(nextBeat! * 1000).toBeLessThan(Date.now() + 6_000);
    } else expect(nextBeat).toBeUndefined();

    // The Grafana dashboard (deploy/grafana) asks only for series that exist.
    const dashboard = fs.readFileSync(
      path.join(import.meta.dirname, "..", "..", "deploy", "grafana", "bcv-rates.json"),
      "utf8",
    );
    const asked = new Set(
      [...dashboard.matchAll(/([a-z_][a-z0-9_]*)\{job=/g)].map((match) => match[1].replace(/_bucket$/, "")),
    );
    expect(asked.size).toBeGreaterThan(10);
    for (const name of asked) expect(text, name).toMatch(new RegExp(`^# TYPE ${name} `, "m"));
  });
});
