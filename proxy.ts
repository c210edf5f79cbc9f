import { type NextRequest, NextResponse } from "next/server";
import { rejectMalformedPath } from "./lib/http/malformed-path";
import { prefersHtml } from "./lib/http/negotiate";
import { contentSecurityPolicy, newNonce, securityHeaders, strictTransportSecurity } from "./lib/http/security-headers";
import { getEnv } from "./lib/server/env";

/** Where the builds console's page lives: app/builds/ holds the API's route handler, and the two cannot share it. */
const BUILDS_CONSOLE_PAGE = "/builds-console";

/**
 * Runs before routing: turns paths Next.js cannot decode into a 400 problem instead of its plain 500, serves
 * the builds console at /builds to a browser (the API's GET /builds answers everyone else), and gives every
 * response the security headers (lib/http/security-headers.ts) with a fresh CSP nonce.
 */
export function proxy(request: NextRequest) {
  const csp = contentSecurityPolicy(newNonce(), getEnv().NODE_ENV === "development");
  // Next.js takes the nonce for its inline scripts from the request's CSP header.
  const forward = { request: { headers: withHeader(request.headers, "Content-Security-Policy", csp) } };
  const response =
    rejectMalformedPath(request) ??
    (isBuildsConsoleRequest(request)
      ? NextResponse.rewrite(new URL(`${BUILDS_CONSOLE_PAGE}${request.nextUrl.search}`, request.url), forward)
      : NextResponse.next(forward));
  for (const [name, value] of Object.entries(securityHeaders(csp))) response.headers.set(name, value);
  const hsts = strictTransportSecurity(request.headers);
  if (hsts) response.headers.set("Strict-Transport-Security", hsts);
  return response;
}

/**
 * /builds asked by a browser's navigation (Accept preferring HTML) wants the page, not the list as JSON. The
 * console's own requests for its React payload are sent to the page by next.config.mjs's rewrites.
 */
function isBuildsConsoleRequest(request: NextRequest): boolean {
  const path = request.nextUrl.pathname;
  return (path === "/builds" || path === "/builds/") && prefersHtml(request);
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
  // sets its own headers (app/embed/route.ts). /builds comes here only when it may be the console's page: asked
  // with text/html, as the API's clients do not.
  matcher: [
    { source: "/builds", has: [{ type: "header", key: "accept", value: ".*text/html.*" }] },
    "/((?!_next/static|_next/image|(?:rates|builds|users|app-config|convert|currencies|hooks|bench)(?:/|$)|openapi\\.json$|embed/?$).*)",
    "/(rates|builds|users|app-config|convert|currencies|hooks|bench)/(.*%.*)",
  ],
};
