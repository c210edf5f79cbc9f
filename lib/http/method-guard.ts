import http from "node:http";
import { processWide } from "../server/process-wide";

/**
 * The methods this server serves somewhere. Anything else (TRACE, TRACK, PROPFIND, MKCOL, ...) is answered
 * 405 here, before Next.js sees it: Next builds a fetch `Request` for every request, and
 * the fetch standard forbids TRACE and TRACK, so those failed in Next's own code with a 500 (and a stack
 * trace in the log) on every path; WebDAV methods reached pages (200) and route handlers (an empty 400).
 * Which of these a given path takes is its own business (its 405, or OPTIONS on the API).
 */
export const SERVED_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;
const served = new Set<string>(SERVED_METHODS);

const state = processWide<{ methodGuardInstalled?: boolean }>("methodGuardInstalled", () => ({}));

/** Wraps `http.Server#emit` (like the address stamp of ./client-address.ts), once per process. */
export function installMethodGuard(): void {
  if (state.methodGuardInstalled) return;
  state.methodGuardInstalled = true;
  const emit = http.Server.prototype.emit;
  http.Server.prototype.emit = function (
    this: http.Server,
    event: string | symbol,
    request?: unknown,
    response?: unknown,
  ) {
    if (event === "request" && !served.has((request as http.IncomingMessage).method ?? "")) {
      refuseMethod(request as http.IncomingMessage, response as http.ServerResponse);
      return true;
    }
    // biome-ignore lint/complexity/noArguments: the events' arguments, whatever their number, without a copy
    return emit.apply(this, arguments as unknown as Parameters<typeof emit>);
  } as typeof emit;
}

function refuseMethod(request: http.IncomingMessage, response: http.ServerResponse): void {
  const method = (request.method ?? "").slice(0, 40);
  const body = JSON.stringify({
    type: "about:blank",
    title: "Method Not Allowed",
    status: 405,
    detail: `${method} is not a method this server serves; it serves ${SERVED_METHODS.join(", ")} (the API docs at /docs say which path takes which).`,
  });
  // The body of a refused request is not read: the connection closes after the answer.
  request.resume();
  response.writeHead(405, {
    Allow: SERVED_METHODS.join(", "),
    "Content-Type": "application/problem+json",
    "Content-Length": Buffer.byteLength(body),
    "Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
    Connection: "close",
  });
  response.end(body);
}
