import { getEnv } from "../server/env";
import { forbidden } from "./problem";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * CSRF defence for writes that a cookie authenticates. SameSite=Lax is not enough here: cookies ignore ports,
 * so a build preview on another port of the same host is "same-site" and its pages' requests carry the
 * dashboard's cookie. A browser's write must therefore come from the dashboard's own origin:
 * `Sec-Fetch-Site: same-origin` (or `none`, a user's own navigation), or, from browsers that do not send
 * that, an `Origin` equal to the app's. Requests with neither header are not from a browser page and pass.
 */
export function assertSameOriginWrite(request: Request): void {
  if (SAFE_METHODS.has(request.method.toUpperCase())) return;
  const site = request.headers.get("sec-fetch-site");
  if (site !== null) {
    if (site === "same-origin" || site === "none") return;
    throw crossOrigin(`Sec-Fetch-Site: ${site}`);
  }
  const origin = request.headers.get("origin");
  if (origin === null) return;
  if (allowedOrigins(request).has(origin)) return;
  throw crossOrigin(`Origin: ${origin.slice(0, 200)}`);
}

function allowedOrigins(request: Request): Set<string> {
  const origins = new Set<string>();
  const configured = getEnv().NEXTAUTH_URL;
  if (configured) origins.add(new URL(configured).origin);
  // Without NEXTAUTH_URL the app is wherever the browser reached it: the Host the request was sent to. A page
  // cannot choose the Host its browser sends, and behind a TLS proxy the scheme seen here may differ, so both.
  const host = request.headers.get("host");
  if (!configured && host) {
    origins.add(`http://${host}`);
    origins.add(`https://${host}`);
  }
  return origins;
}

const crossOrigin = (seen: string) =>
  forbidden(
    `Cross-origin write refused (${seen}): a request authenticated by the session cookie must come from the ` +
      "dashboard's own origin. API clients send 'Authorization: Bearer <token>' instead.",
  );
