import { getEnv } from "../env";

/**
 * The benchmark's floor (`npm run bench`): the least a route handler of this app can cost, constant JSON of
 * the size of a rate, without the database or the cache. Served only when BENCH_ROUTES=1, which only the
 * benchmark sets; 404 otherwise. Not part of the API, so not in /openapi.json.
 */
const BODY = JSON.stringify({ dollar: 236.4587, date: "2026-11-23" });

export function benchFloorResponse(): Response {
  if (getEnv().BENCH_ROUTES !== "1") return new Response(null, { status: 404 });
  return new Response(BODY, { headers: { "Content-Type": "application/json" } });
}
