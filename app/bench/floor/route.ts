import { benchFloorResponse } from "@/lib/http/bench-floor";

/** GET /bench/floor: the framework's floor for the benchmark; 404 unless BENCH_ROUTES=1. */
export const GET = benchFloorResponse;
