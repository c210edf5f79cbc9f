import { observeRequest } from "../metrics/registry";
import { routePatternOf } from "../metrics/route-patterns";
import { problemResponse, toProblem } from "./problem";
import { withStrictTransportSecurity } from "./security-headers";

type Handler<C> = (request: Request, context: C) => Promise<Response> | Response;

/**
 * Wraps a route handler so that whatever it throws answers as a problem response. This is the one place
 * errors are caught; handlers stay a straight line of parse, authorize, call, return. Every answer is counted
 * (GET /metrics) under its route pattern, method and status.
 */
export function route<C = unknown>(handler: Handler<C>): Handler<C> {
  return async (request, context) => {
    const started = performance.now();
    let response: Response;
    try {
      response = await handler(request, context);
    } catch (error) {
      response = problemResponse(toProblem(error));
    }
    response = withStrictTransportSecurity(request, response);
    observeRequest(
      routePatternOf(new URL(request.url).pathname),
      request.method,
      response.status,
      (performance.now() - started) / 1000,
    );
    return response;
  };
}

export function json(body: unknown, init: ResponseInit = {}): Response {
  const headers = new Headers(init.headers);
  headers.set("Content-Type", "application/json");
  return new Response(JSON.stringify(body), { ...init, headers });
}

/**
 * 303 to the dashboard with a build's drawer open (`/?build=<id>`): what `/builds/{id}` answers a browser.
 * A page and a route handler cannot share the path in Next.js, and the dashboard already opens a build
 * from its query string. `Vary: Accept`, since the same URL answers JSON to API clients.
 */
export function dashboardWithBuild(buildId: string): Response {
  const location = `/?build=${encodeURIComponent(buildId)}`;
  return new Response(null, {
    status: 303,
    headers: { Location: location, Vary: "Accept", "Cache-Control": "no-store" },
  });
}
