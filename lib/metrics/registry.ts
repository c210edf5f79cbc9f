import { Counter, collectDefaultMetrics, Histogram, Registry } from "prom-client";
import { processWide } from "../server/process-wide";

/**
 * The figures this instance counts as it works (GET /metrics, lib/metrics/scrape.ts adds those read at scrape
 * time): its HTTP requests, its stages, its webhook deliveries, and Node's process metrics. Kept on globalThis:
 * Next bundles each route handler and instrumentation's jobs apart, and every one of them must count into the same
 * registry. Labels hold route patterns, methods, statuses, stage names and outcomes only: never a token, a user or
 * an address.
 */
export interface InstanceMetrics {
  registry: Registry;
  httpRequests: Counter<"route" | "method" | "status">;
  httpDuration: Histogram<"route" | "method" | "status">;
  stageDuration: Histogram<"stage" | "status">;
  webhookDeliveries: Counter<"outcome">;
  installCacheLookups: Counter<"outcome">;
}

const globalForMetrics = processWide<{ instanceMetrics?: InstanceMetrics }>("instanceMetrics", () => ({}));

export function instanceMetrics(): InstanceMetrics {
  globalForMetrics.instanceMetrics ??= createMetrics();
  return globalForMetrics.instanceMetrics;
}

function createMetrics(): InstanceMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  return {
    registry,
    httpRequests: new Counter({
      name: "http_requests_total",
      help: "API requests answered, by route pattern, method and status.",
      labelNames: ["route", "method", "status"],
      registers,
    }),
    httpDuration: new Histogram({
      name: "http_request_duration_seconds",
      help: "Time to answer an API request (to its headers, for a stream), by route pattern, method and status.",
      labelNames: ["route", "method", "status"],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
    stageDuration: new Histogram({
      name: "build_stage_duration_seconds",
      help: "Duration of the build stages this instance ran, by stage and how it ended.",
      labelNames: ["stage", "status"],
      buckets: [0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800],
      registers,
    }),
    webhookDeliveries: new Counter({
      name: "webhook_delivery_attempts_total",
      help: "Webhook delivery attempts this instance made, by outcome: delivered, retry (failed, tried again later), failed (given up).",
      labelNames: ["outcome"],
      registers,
    }),
    installCacheLookups: new Counter({
      name: "build_install_cache_lookups_total",
      help: "Install stages that looked in this host's install cache, by outcome: hit (restored), miss (installed; a failed restore counts here too).",
      labelNames: ["outcome"],
      registers,
    }),
  };
}

interface RequestSeries {
  count: () => void;
  observe: (seconds: number) => void;
}

// One entry per route pattern, method and status: as bounded as the labels themselves.
const globalForSeries = processWide<{ requestSeries?: Map<string, RequestSeries> }>("requestSeries", () => ({}));

/** Counts an answered API request under its route pattern (lib/metrics/route-patterns.ts). */
export function observeRequest(route: string, method: string, status: number, seconds: number): void {
  const all = (globalForSeries.requestSeries ??= new Map());
  const key = `${route} ${method} ${status}`;
  let series = all.get(key);
  if (!series) {
    // The labels checked once, not on every request.
    const labels = { route, method, status: String(status) };
    const metrics = instanceMetrics();
    const counter = metrics.httpRequests.labels(labels);
    const histogram = metrics.httpDuration.labels(labels);
    series = { count: () => counter.inc(), observe: (value: number) => histogram.observe(value) };
    all.set(key, series);
  }
  series.count();
  series.observe(seconds);
}
