import { benchFloorResponse } from "@/lib/http/bench-floor";

/**
 * GET /bench/{name}: the same constant as /bench/floor, for paths that go through the proxy (proxy.ts runs
 * only on paths with a percent sign: /bench/%66loor), so the benchmark measures what the proxy costs.
 * 404 unless BENCH_ROUTES=1.
 */
export const GET = benchFloorResponse;
