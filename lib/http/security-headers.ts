import { cameThroughTrustedProxy } from "./client-address";

/**
 * Headers every page carries (set in proxy.ts; the JSON API gets the same from next.config.mjs, with a
 * policy that allows nothing, since a JSON body loads nothing). The Content-Security-Policy allows scripts only from the
 * app's own origin plus the inline scripts Next.js writes, which carry a per-request nonce (Next reads it from
 * the request's CSP header and stamps its scripts; the pages are rendered per request for that, see
 * app/layout.tsx). Same-origin script files stay allowed, so /docs may load Swagger UI from /public. Styles
 * allow inline attributes: React, Recharts and Swagger UI set `style=` at run time.
 */
export function contentSecurityPolicy(nonce: string, development: boolean): string {
  return [
    "default-src 'self'",
    // Next's development client evaluates modules (React Refresh); production does not.
    `script-src 'self' 'nonce-${nonce}'${development ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

export function securityHeaders(csp: string): Record<string, string> {
  return {
    "Content-Security-Policy": csp,
    // For browsers without CSP frame-ancestors: no framing (clickjacking).
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    // Build ids and paths stay on the dashboard: previews and other sites get no Referer.
    "Referrer-Policy": "same-origin",
  };
}

export function newNonce(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64");
}

/** A year: the policy's usual lifetime, renewed by every page served over HTTPS. */
const HSTS = "max-age=31536000";

/**
 * Strict-Transport-Security for a request that came over HTTPS: the server speaks HTTP behind a TLS proxy, so only
 * that proxy knows, and only a proxy of TRUSTED_PROXIES is believed when it says so (`X-Forwarded-Proto: https`,
 * the nearest hop's). Over plain HTTP the header would be ignored, and from anyone else a client could make
 * the app claim HTTPS.
 */
export function strictTransportSecurity(headers: Headers): string | undefined {
  const proto = headers.get("x-forwarded-proto")?.split(",").at(-1)?.trim().toLowerCase();
  return proto === "https" && cameThroughTrustedProxy(headers) ? HSTS : undefined;
}

/** Adds HSTS to a response when its request came over HTTPS through a trusted proxy; returns the response. */
export function withStrictTransportSecurity(request: Request, response: Response): Response {
  const hsts = strictTransportSecurity(request.headers);
  if (hsts === undefined) return response;
  try {
    response.headers.set("Strict-Transport-Security", hsts);
    return response;
  } catch {
    // Immutable headers (a response made by fetch or Response.redirect): answer a copy.
    const copy = new Response(response.body, response);
    copy.headers.set("Strict-Transport-Security", hsts);
    return copy;
  }
}
