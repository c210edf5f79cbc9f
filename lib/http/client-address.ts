/**
 * The address a request came from, as a key for per-client limits. Route handlers do not see the socket:
 * Next's server puts its address in `X-Forwarded-For` when the request has none, and keeps the header a
 * client sent. A client can therefore choose its own key; limits keyed on it must have a total as well.
 */
export function clientAddress(request: Request): string {
  const forwarded = request.headers.get("x-forwarded-for") ?? "";
  const first = forwarded.split(",")[0]?.trim() ?? "";
  // Bounded, so that a long header cannot make a long key.
  return first.slice(0, 64) || "unknown";
}
