import { benchFloorResponse } from "@/lib/http/bench-floor";

/**
 * GET /bench/{name}: the same constant as /bench/floor from a route with a path parameter, so the benchmark
 * measures what Next's matching of a dynamic segment adds (/bench/segment), and, for paths that go through the
 * proxy (proxy.ts runs only on paths with a percent sign: /bench/%66loor), what the proxy costs.
 * 404 unless BENCH_ROUTES=1.
 */
export const GET = benchFloorResponse;
