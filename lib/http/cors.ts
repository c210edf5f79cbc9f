/**
 * Cross-origin access (CORS) to the rates API, so that browser apps on other sites can use it:
 * - the public reads (rates, currencies, conversion) answer `Access-Control-Allow-Origin: *`;
 * - the rate writes (POST /rates/, POST /rates/import) may be called from other origins with a bearer token.
 * Credentials are never allowed across origins (no Access-Control-Allow-Credentials): a browser does not send
 * or expose the session cookie to another site's script, so only an explicit bearer token can write.
 * Applied to every matching request by the proxy (proxy.ts), preflights included.
 */

interface CorsRule {
  path: RegExp;
  methods: string[];
}

const RULES: CorsRule[] = [
  { path: /^\/rates\/?$/, methods: ["GET", "HEAD", "POST"] },
  { path: /^\/rates\/import\/?$/, methods: ["POST"] },
  { path: /^\/rates\/history\/?$/, methods: ["GET", "HEAD"] },
  { path: /^\/rates\/[^/]+\/?$/, methods: ["GET", "HEAD"] },
  { path: /^\/currencies\/?$/, methods: ["GET", "HEAD"] },
  { path: /^\/convert\/?$/, methods: ["GET", "HEAD"] },
];

const ALLOWED_HEADERS = "Authorization, Content-Type, If-None-Match";
// Readable by the calling script beyond the CORS-safelisted ones.
const EXPOSED_HEADERS = "ETag, Retry-After, WWW-Authenticate";
const PREFLIGHT_MAX_AGE_SECONDS = 600;

/** The methods of the first rule matching the path (the specific paths come before /rates/{date}). */
function methodsFor(pathname: string): string[] | undefined {
  return RULES.find((rule) => rule.path.test(pathname))?.methods;
}

/** The answer to a CORS preflight (OPTIONS with Access-Control-Request-Method) for a CORS path, else undefined. */
export function corsPreflight(request: Request): Response | undefined {
  if (request.method !== "OPTIONS" || !request.headers.has("access-control-request-method")) return undefined;
  const methods = methodsFor(new URL(request.url).pathname);
  if (!methods) return undefined;
  return new Response(null, {
    status: 204,
    headers: {
      "Access-Control-Allow-Origin": "*",
      "Access-Control-Allow-Methods": methods.join(", "),
      "Access-Control-Allow-Headers": ALLOWED_HEADERS,
      "Access-Control-Max-Age": String(PREFLIGHT_MAX_AGE_SECONDS),
      Vary: "Access-Control-Request-Headers",
    },
  });
}

/** Adds the CORS headers of a request's path to its response's headers (nothing for other paths). */
export function applyCors(request: Request, headers: Headers): void {
  if (!methodsFor(new URL(request.url).pathname)) return;
  headers.set("Access-Control-Allow-Origin", "*");
  headers.set("Access-Control-Expose-Headers", EXPOSED_HEADERS);
}
