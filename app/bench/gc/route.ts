import { getEnv } from "@/lib/env";
import { garbageCollectionCounts } from "@/lib/http/bench-gc";

/**
 * GET /bench/gc: the server's garbage collections so far (lib/http/bench-gc.ts), which the benchmark reads
 * before and after each round. 404 unless BENCH_ROUTES=1; not part of the API.
 */
export function GET(): Response {
  const counts = getEnv().BENCH_ROUTES === "1" ? garbageCollectionCounts() : undefined;
  if (!counts) return new Response(null, { status: 404 });
  return Response.json(counts, { headers: { "Cache-Control": "no-store" } });
}
