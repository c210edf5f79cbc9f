const BODY = JSON.stringify({ dollar: 236.4587, date: "2026-11-23" });
const MAX_BYTES = 1_000_000;
const sizedBodies = new Map();

/** JSON of exactly `bytes` bytes: {"padding":"xxx…"}. */
function sizedBody(bytes) {
  let body = sizedBodies.get(bytes);
  if (!body) {
    body = Buffer.from(JSON.stringify({ padding: "x".repeat(bytes - '{"padding":""}'.length) }));
    sizedBodies.set(bytes, body);
  }
  return body;
}

/**
 * The least a route handler can cost. A sized body is sent as the app sends its cached reads (lib/http/cache.ts's
 * uncopiedBody): a stream that passes the bytes on by reference, where `new Response(bytes)` would copy them.
 */
export function constantResponse(request) {
  const bytes = new URL(request.url).searchParams.get("bytes");
  if (bytes === null) return new Response(BODY, { headers: { "Content-Type": "application/json" } });
  const size = Number(bytes);
  if (!Number.isInteger(size) || size < 16 || size > MAX_BYTES) return new Response(null, { status: 400 });
  const body = sizedBody(size);
  const stream = new ReadableStream({
    start(controller) {
      controller.enqueue(body);
      controller.close();
    },
  });
  return new Response(stream, { headers: { "Content-Type": "application/json" } });
}
