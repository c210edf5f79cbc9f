import { NextResponse, type NextRequest } from "next/server";
import { rejectMalformedPath } from "./lib/http/malformed-path";

/** Runs before routing: turns paths Next.js cannot decode into a 400 problem instead of its plain 500. */
export function proxy(request: NextRequest) {
  return rejectMalformedPath(request) ?? NextResponse.next();
}

export const config = {
  // Every path but Next's own assets, whose names are generated.
  matcher: ["/((?!_next/static|_next/image).*)"],
};
