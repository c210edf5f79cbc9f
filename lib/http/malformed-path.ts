import { badRequest, problemResponse } from "./problem";

/**
 * A 400 problem for a request path that is not valid percent-encoding (`/rates/%`, `/rates/%E0%A4%A`), or
 * undefined for any other path. Next.js fails to decode such a path into a dynamic segment's params before
 * any route handler runs, and answers a plain-text 500; the proxy (proxy.ts) answers this instead.
 */
export function rejectMalformedPath(request: Request): Response | undefined {
  const pathname = new URL(request.url).pathname;
  try {
    decodeURIComponent(pathname);
    return undefined;
  } catch {
    return problemResponse(
      badRequest("The request path is not valid percent-encoding: each % must start an escape such as %20.", [
        { field: "path", message: "is not valid percent-encoding" },
      ]),
    );
  }
}
