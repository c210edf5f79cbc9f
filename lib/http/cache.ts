import etag from "etag";
import fresh from "fresh";

export interface CacheOptions {
  /** How long a client or proxy may reuse the response without asking again. */
  maxAgeSeconds?: number;
  /** "public" lets shared caches keep it too; use "private" for anything tied to a user. */
  scope?: "public" | "private";
  /** More headers for both the 200 and the 304. */
  headers?: Record<string, string>;
  /** The body's type when it is not JSON (an SVG image, an HTML page made on the server). */
  contentType?: string;
}

/** A JSON body serialised once, with its ETag: what a cache keeps to answer without doing the work again. */
export interface SerializedJson {
  body: Buffer;
  etag: string;
}

export function serializedJson(body: unknown): SerializedJson {
  return serializedText(JSON.stringify(body));
}

/** Any text body (SVG, HTML) kept and revalidated as a JSON one is. */
export function serializedText(text: string): SerializedJson {
  const bytes = Buffer.from(text);
  return { body: bytes, etag: etag(bytes) };
}

/**
 * A 200 JSON response that clients can revalidate: an ETag derived from the body and a short
 * Cache-Control. A request whose If-None-Match matches that ETag (weak or strong, one tag of a list, or `*`)
 * gets 304 Not Modified with the same headers and no body. The body is computed either way; what is saved
 * is the transfer and the client's work.
 */
export function cacheableJson(request: Request, body: unknown, options: CacheOptions = {}): Response {
  return cachedJson(request, serializedJson(body), options);
}

/** cacheableJson for a body serialised earlier: no serialisation, no hashing. */
export function cachedJson(request: Request, json: SerializedJson, options: CacheOptions = {}): Response {
  return answerCached(request, cachedAnswer(json, options));
}

/**
 * A serialised body with the headers of its answers, made once: a cache keeps this, and each of its hits answers
 * with these very header lists instead of assembling them again.
 */
export interface CachedAnswer {
  json: SerializedJson;
  /** The 200's headers. */
  ok: Readonly<Record<string, string>>;
  /** The 304's: the same but the body's type. */
  notModified: Readonly<Record<string, string>>;
}

export function cachedAnswer(json: SerializedJson, options: CacheOptions = {}): CachedAnswer {
  const { maxAgeSeconds = 60, scope = "public" } = options;
  const notModified = { ...options.headers, ETag: json.etag, "Cache-Control": `${scope}, max-age=${maxAgeSeconds}` };
  return { json, notModified, ok: { ...notModified, "Content-Type": options.contentType ?? "application/json" } };
}

/**
 * A 200 with the cached body, or a 304 to a request whose If-None-Match matches its ETag (weak or strong, one tag
 * of a list, or `*`), both with the answer's headers.
 */
export function answerCached(request: Request, answer: CachedAnswer): Response {
  const { etag: tag, body } = answer.json;
  const ifNoneMatch = request.headers.get("if-none-match");
  // Only If-None-Match is passed on: `fresh` answers "stale" to any request with Cache-Control: no-cache,
  // which fetch() adds by itself to every request carrying If-None-Match. That directive is for caches on
  // the way; the origin evaluates the precondition regardless (RFC 9110, 13.2.1).
  if (ifNoneMatch !== null && (ifNoneMatch === tag || fresh({ "if-none-match": ifNoneMatch }, { etag: tag }))) {
    return new Response(null, { status: 304, headers: answer.notModified });
  }
  // No Content-Length: Next.js drops it from a route handler's response and sends the body chunked. The status is
  // the default, 200, which spares its conversion.
  return new Response(uncopiedBody(body), { headers: answer.ok });
}

/**
 * A body that reaches the socket as the very bytes given, not a copy: `new Response(bytes)` copies a
 * BufferSource, as the Fetch standard's "extract a body" says (undici then hands the copy to a byte stream,
 * which takes it over). For a cached body that copy was the larger part of a cache hit: 158 KB for the 10-year
 * history on every answer, a fresh allocation each time, up to 64 of them alive at once under load
 * (docs/performance.md). A plain stream that enqueues the bytes passes them on by reference and never detaches
 * them, so the cache's copy stays whole for the next request. A small body gains nothing from the copy either:
 * undici makes a stream around a BufferSource or a string too (a byte stream, when the Response is made), so
 * `new Response(bytes)` costs this stream plus the copy, whatever the size.
 */
export function uncopiedBody(bytes: Uint8Array): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      controller.enqueue(bytes);
      controller.close();
    },
  });
}
