import { type NextRequest, NextResponse } from "next/server";
import { rejectMalformedPath } from "./lib/http/malformed-path";
import { contentSecurityPolicy, newNonce, securityHeaders, strictTransportSecurity } from "./lib/http/security-headers";
import { getEnv } from "./lib/server/env";

/**
 * Runs before routing: turns paths Next.js cannot decode into a 400 problem instead of its plain 500, and
 * gives every response the security headers (lib/http/security-headers.ts) with a fresh CSP nonce.
 */
export function proxy(request: NextRequest) {
  const csp = contentSecurityPolicy(newNonce(), getEnv().NODE_ENV === "development");
  const malformed = rejectMalformedPath(request);
  const response =
    malformed ??
    NextResponse.next({
      // Next.js takes the nonce for its inline scripts from the request's CSP header.
      request: { headers: withHeader(request.headers, "Content-Security-Policy", csp) },
    });
  for (const [name, value] of Object.entries(securityHeaders(csp))) response.headers.set(name, value);
  const hsts = strictTransportSecurity(request.headers);
  if (hsts) response.headers.set("Strict-Transport-Security", hsts);
  return response;
}

function withHeader(headers: Headers, name: string, value: string): Headers {
  const copy = new Headers(headers);
  copy.set(name, value);
  return copy;
}

export const config = {
  // Pages (for their nonce), next-auth's routes and Next's not-found page; not Next's own assets, whose names
  // are generated, nor the JSON API (the prefixes in next.config.mjs, which gives them the security headers):
  // the proxy costs about as much again as a whole route handler (docs/performance.md). API paths with a
  // percent sign, which may be malformed, still come here. Nor /embed, the one page any site may frame, which
  // sets its own headers (app/embed/route.ts).
  matcher: [
    "/((?!_next/static|_next/image|(?:rates|builds|users|app-config|convert|currencies|hooks|bench)(?:/|$)|openapi\\.json$|embed/?$).*)",
    "/(rates|builds|users|app-config|convert|currencies|hooks|bench)/(.*%.*)",
  ],
};
