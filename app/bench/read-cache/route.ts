import { getEnv } from "@/lib/env";
import { rateReadCacheStats } from "@/lib/rates/read-cache";

/**
 * GET /bench/read-cache: what the rate reads' cache holds (entries, bytes, and its epoch, which moves on every
 * invalidation), for the tests and the benchmark. 404 unless BENCH_ROUTES=1; not part of the API.
 */
export function GET(): Response {
  if (getEnv().BENCH_ROUTES !== "1") return new Response(null, { status: 404 });
  return Response.json(rateReadCacheStats(), { headers: { "Cache-Control": "no-store" } });
}
