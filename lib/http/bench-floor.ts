import { getEnv } from "../env";
import { uncopiedBody } from "./cache";

/**
 * The benchmark's floor (`npm run bench`): the least a route handler of this app can cost, constant JSON of
 * the size of a rate, without the database or the cache; with `?bytes=N`, constant JSON of N bytes, the floor
 * for a read of that size (the 10-year history is about 155 KB, and writing it costs Next.js and the client more
 * than 40 bytes do, whatever the app does). Served only when BENCH_ROUTES=1, which only the benchmark sets; 404
 * otherwise. Not part of the API, so not in /openapi.json.
 */
const BODY = JSON.stringify({ dollar: 236.4587, date: "2026-11-23" });
const MAX_BYTES = 1_000_000;
const sizedBodies = new Map<number, Buffer>();

/** JSON of exactly `bytes` bytes: {"padding":"xxx…"}. */
function sizedBody(bytes: number): Buffer {
  let body = sizedBodies.get(bytes);
  if (!body) {
    body = Buffer.from(JSON.stringify({ padding: "x".repeat(bytes - '{"padding":""}'.length) }));
    sizedBodies.set(bytes, body);
  }
  return body;
}

export function benchFloorResponse(request: Request): Response {
  if (getEnv().BENCH_ROUTES !== "1") return new Response(null, { status: 404 });
  const bytes = new URL(request.url).searchParams.get("bytes");
  if (bytes === null) return new Response(BODY, { headers: { "Content-Type": "application/json" } });
  const size = Number(bytes);
  if (!Number.isInteger(size) || size < 16 || size > MAX_BYTES) return new Response(null, { status: 400 });
  const body = sizedBody(size);
  // Sent as the app sends its cached reads (lib/http/cache.ts): the floor is the least a route can cost.
  return new Response(uncopiedBody(body), { headers: { "Content-Type": "application/json" } });
}
