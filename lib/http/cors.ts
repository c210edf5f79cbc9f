/**
 * Cross-origin access (CORS) to the rates API, so that browser apps on other sites can use it:
 * - the public reads (rates, currencies, conversion) answer `Access-Control-Allow-Origin: *`;
 * - the rate writes (POST /rates/, POST /rates/import) may be called from other origins with a bearer token.
 * Credentials are never allowed across origins (no Access-Control-Allow-Credentials): a browser does not send
 * or expose the session cookie to another site's script, so only an explicit bearer token can write.
 *
 * Applied by the route handlers themselves (`withCors` around the handler, `corsPreflight` as OPTIONS), not by
 * the proxy: the proxy may skip the hot public reads.
 */

type Handler<C> = (request: Request, context: C) => Promise<Response> | Response;

const ALLOWED_HEADERS = "Authorization, Content-Type, If-None-Match";
// Readable by the calling script beyond the CORS-safelisted ones.
const EXPOSED_HEADERS = "ETag, Link, Retry-After, WWW-Authenticate";
const PREFLIGHT_MAX_AGE_SECONDS = 600;

function addCorsHeaders(response: Response): Response {
  try {
    response.headers.set("Access-Control-Allow-Origin", "*");
    response.headers.set("Access-Control-Expose-Headers", EXPOSED_HEADERS);
    return response;
  } catch {
    // Immutable headers (a response made by fetch or Response.redirect): answer a copy.
    const copy = new Response(response.body, response);
    return addCorsHeaders(copy);
  }
}

/**
 * Wraps a route handler so that its every answer (problems and 304s included) may be read from any origin; an
 * answer given at once (a cache hit) at once.
 */
export function withCors<C>(handler: Handler<C>): Handler<C> {
  return (request, context) => {
    const response = handler(request, context);
    return response instanceof Promise ? response.then(addCorsHeaders) : addCorsHeaders(response);
  };
}

/** The OPTIONS handler of a CORS route: answers preflights for `methods` with a bearer token allowed. */
export function corsPreflight(methods: string[]): () => Response {
  const allowed = [...methods, "OPTIONS"].join(", ");
  return () =>
    new Response(null, {
      status: 204,
      headers: {
        "Access-Control-Allow-Origin": "*",
        "Access-Control-Allow-Methods": allowed,
        "Access-Control-Allow-Headers": ALLOWED_HEADERS,
        "Access-Control-Max-Age": String(PREFLIGHT_MAX_AGE_SECONDS),
        Allow: allowed,
      },
    });
}
