import { observeRequest } from "../metrics/registry";
import { routePatternOf } from "../metrics/route-patterns";
import { problemResponse, toProblem } from "./problem";
import { withStrictTransportSecurity } from "./security-headers";

type Handler<C> = (request: Request, context: C) => Promise<Response> | Response;

/**
 * Wraps a route handler so that whatever it throws answers as a problem response. This is the one place
 * errors are caught; handlers stay a straight line of parse, authorize, call, return. Every answer is counted
 * (GET /metrics) under its route pattern, method and status. A handler that answers at once (a rate read's cache
 * hit) is answered at once too, without a promise of the wrapper's own.
 */
export function route<C = unknown>(handler: Handler<C>): Handler<C> {
  return (request, context) => {
    const started = performance.now();
    const answered = (response: Response) => {
      const sent = withStrictTransportSecurity(request, response);
      observeRequest(
        routePatternOf(pathnameOf(request.url)),
        request.method,
        sent.status,
        (performance.now() - started) / 1000,
      );
      return sent;
    };
    const failed = (error: unknown) => answered(problemResponse(toProblem(error)));
    let result: Promise<Response> | Response;
    try {
      result = handler(request, context);
    } catch (error) {
      return failed(error);
    }
    return result instanceof Promise ? result.then(answered, failed) : answered(result);
  };
}

/** The path of a request's URL (absolute and normalised: Next builds it), without parsing a URL object. */
function pathnameOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("://") + 3);
  if (start < 0) return "/";
  const query = url.indexOf("?", start);
  return query < 0 ? url.slice(start) : url.slice(start, query);
}

export function json(body: unknown, init: ResponseInit = {}): Response {
  const headers = new Headers(init.headers);
  headers.set("Content-Type", "application/json");
  return new Response(JSON.stringify(body), { ...init, headers });
}

/**
 * 303 to the builds console with a build's drawer open (`/builds?build=<id>`): what `/builds/{id}` answers a
 * browser. A page and a route handler cannot share the path in Next.js, and the console already opens a build
 * from its query string. `Vary: Accept`, since the same URL answers JSON to API clients.
 */
export function consoleWithBuild(buildId: string): Response {
  const location = `/builds?build=${encodeURIComponent(buildId)}`;
  return new Response(null, {
    status: 303,
    headers: { Location: location, Vary: "Accept", "Cache-Control": "no-store" },
  });
}
