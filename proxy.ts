import { NextResponse, type NextRequest } from "next/server";
import { applyCors, corsPreflight } from "./lib/http/cors";
import { rejectMalformedPath } from "./lib/http/malformed-path";

/**
 * Runs before routing: turns paths Next.js cannot decode into a 400 problem instead of its plain 500, answers
 * CORS preflights and adds the CORS headers of the public rate endpoints (lib/http/cors.ts).
 */
export function proxy(request: NextRequest) {
  const preflight = corsPreflight(request);
  if (preflight) return preflight;
  const response = rejectMalformedPath(request) ?? NextResponse.next();
  applyCors(request, response.headers);
  return response;
}

export const config = {
  // Every path but Next's own assets, whose names are generated.
  matcher: ["/((?!_next/static|_next/image).*)"],
};
