import crypto from "node:crypto";
import { Counter, Gauge, Registry } from "prom-client";
import { openLogStreams } from "../builds/logs/log-streams";
import { executorSlots } from "../builds/queue/executor";
import { queryAll } from "../db/hot-sql";
import { notFound, unauthorized } from "../http/problem";
import { findLastFetches } from "../rates/fetch-log";
import { rateReadCacheStats } from "../rates/read-cache";
import { getEnv } from "../server/env";
import { listJobs } from "../server/scheduler";
import { getTopology } from "../topology";
import { instanceMetrics } from "./registry";

/**
 * GET /metrics: this instance's counters (lib/metrics/registry.ts) and what is read at scrape time. Figures of
 * the whole cluster, read from the shared database (builds by status, the queue, the instances and their
 * heartbeats, the rates' freshness, the webhook backlog), are given by one instance at a time: the live instance
 * whose name sorts first (`cluster_figures_reporter` 1 there, 0 elsewhere), so that summing the instances counts
 * nothing twice. Those of the instance itself (its slots, its open log streams) come from each.
 */
export async function scrapeMetrics(request: Request): Promise<{ contentType: string; body: string }> {
  authorizeScrape(request);
  const instance = instanceMetrics();
  const scraped = new Registry();
  const gauge = (name: string, help: string, labelNames: string[] = []) =>
    new Gauge({ name, help, labelNames, registers: [scraped] });

  const slots = executorSlots();
  const slotGauge = gauge("build_slots", "This instance's build slots (max_concurrent_builds), used and free.", [
    "state",
  ]);
  slotGauge.set({ state: "used" }, slots.used);
  slotGauge.set({ state: "free" }, Math.max(0, slots.total - slots.used));
  gauge("build_log_streams_open", "Build log streams this instance serves now.").set(openLogStreams());
  const readCache = rateReadCacheStats();
  gauge("rates_read_cache_entries", "Rate reads this instance's cache holds now.").set(readCache.entries);
  gauge("rates_read_cache_bytes", "Bytes of the answers this instance's rate read cache holds.").set(readCache.bytes);
  gauge(
    "rates_read_cache_invalidations",
    "Times this instance's rate read cache was emptied since it started: once per change to the stored rates seen.",
  ).set(readCache.epoch);

  countJobRuns(scraped, gauge);

  const databaseUp = gauge("metrics_database_up", "1 when the database answered this scrape's questions.");
  const reporterGauge = gauge(
    "cluster_figures_reporter",
    "1 on the one instance that gives the cluster's figures (builds, queue, instances, rates, webhooks).",
  );
  try {
    const reporter = await isClusterReporter();
    reporterGauge.set(reporter ? 1 : 0);
    if (reporter) await readClusterFigures(gauge);
    databaseUp.set(1);
  } catch (error) {
    console.error(`metrics: the cluster's figures could not be read: ${(error as Error).message}`);
    reporterGauge.set(0);
    databaseUp.set(0);
  }
  const merged = Registry.merge([instance.registry, scraped]);
  return { contentType: instance.registry.contentType, body: await merged.metrics() };
}

/** The background jobs of this instance (lib/server/scheduler.ts): their runs, and when each runs next. */
function countJobRuns(scraped: Registry, gauge: GaugeMaker): void {
  const runs = new Counter({
    name: "background_job_runs_total",
    help: "Runs of each background job on this instance since it started, by outcome (success, failure).",
    labelNames: ["job_name", "outcome"],
    registers: [scraped],
  });
  const next = gauge(
    "background_job_next_run_timestamp_seconds",
    "When each background job on this instance runs next; none while it runs, or when it runs only when asked.",
    ["job_name"],
  );
  const running = gauge("background_job_running", "1 while a run of the background job is under way here.", [
    "job_name",
  ]);
  for (const job of listJobs()) {
    running.set({ job_name: job.name }, job.running ? 1 : 0);
    runs.inc({ job_name: job.name, outcome: "success" }, job.runs - job.failures);
    runs.inc({ job_name: job.name, outcome: "failure" }, job.failures);
    if (job.nextRunAt) next.set({ job_name: job.name }, job.nextRunAt.getTime() / 1000);
  }
}

/** 404 without METRICS_TOKEN (no metrics here at all); 401 without its bearer token. Compared in constant time. */
function authorizeScrape(request: Request): void {
  const expected = getEnv().METRICS_TOKEN;
  if (expected === undefined) throw notFound("No metrics are served here: METRICS_TOKEN is not set.");
  const given = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(request.headers.get("authorization") ?? "")?.[1] ?? "";
  const digest = (text: string) => crypto.createHash("sha256").update(text).digest();
  if (!crypto.timingSafeEqual(digest(given), digest(expected))) {
    throw unauthorized("GET /metrics needs 'Authorization: Bearer <METRICS_TOKEN>'.");
  }
}

/** Whether this instance gives the cluster's figures: no live instance's name sorts before its own. */
async function isClusterReporter(): Promise<boolean> {
  const topology = getTopology();
  const me = topology.instanceName();
  return !(await topology.instances(await topology.now())).some((instance) => instance.name < me && instance.live);
}

type GaugeMaker = (name: string, help: string, labelNames?: string[]) => Gauge;

async function readClusterFigures(gauge: GaugeMaker): Promise<void> {
  const topology = getTopology();
  const now = await topology.now();
  const byStatus = await queryAll<{ status: string; count: number | string }>(
    `SELECT "status", COUNT(*) AS "count" FROM "Build" GROUP BY "status"`,
  );
  const builds = gauge("builds", "Builds of the cluster by status.", ["status"]);
  for (const row of byStatus) builds.set({ status: row.status }, Number(row.count));
  gauge("builds_queue_length", "Builds of the cluster waiting for a slot.").set(
    Number(byStatus.find((row) => row.status === "queued")?.count ?? 0),
  );

  const instances = await topology.instances(now);
  gauge("instances_live", "Instances whose heartbeat is younger than INSTANCE_LOST_AFTER_SECONDS.").set(
    instances.filter((instance) => instance.live).length,
  );
  const heartbeats = gauge("instance_heartbeat_age_seconds", "Age of each registered instance's heartbeat.", [
    "instance_name",
  ]);
  for (const instance of instances) {
    heartbeats.set({ instance_name: instance.name }, (now.getTime() - instance.heartbeatAt.getTime()) / 1000);
  }

  const newest = await queryAll<{ currency: string; date: string }>(
    `SELECT "currency", MAX("date") AS "date" FROM "CurrencyRate" GROUP BY "currency"`,
  );
  const ages = gauge(
    "rates_value_date_age_seconds",
    "Age of the newest value date stored for each currency, from 00:00 UTC of that date.",
    ["currency"],
  );
  for (const row of newest)
    ages.set({ currency: row.currency }, (now.getTime() - Date.parse(`${row.date}T00:00:00Z`)) / 1000);
  const { success, failure } = await findLastFetches();
  const lastFetch = gauge(
    "rates_last_fetch_timestamp_seconds",
    "When the last fetch of the bank's page of each result ended.",
    ["result"],
  );
  if (success) lastFetch.set({ result: "success" }, success.finishedAt.getTime() / 1000);
  if (failure) lastFetch.set({ result: "failure" }, failure.finishedAt.getTime() / 1000);
  const lastOk = success !== null && (failure === null || success.finishedAt >= failure.finishedAt);
  gauge("rates_last_fetch_success", "1 when the newest fetch of the bank's page succeeded.").set(lastOk ? 1 : 0);

  const deliveries = await queryAll<{ status: string; count: number | string }>(
    `SELECT "status", COUNT(*) AS "count" FROM "RateWebhookDelivery" GROUP BY "status"`,
  );
  const byOutcome = gauge("webhook_deliveries", "Webhook deliveries recorded, by status: pending, delivered, failed.", [
    "status",
  ]);
  for (const row of deliveries) byOutcome.set({ status: row.status }, Number(row.count));
  gauge("webhook_deliveries_backlog", "Webhook deliveries still to be made (pending).").set(
    Number(deliveries.find((row) => row.status === "pending")?.count ?? 0),
  );
}
