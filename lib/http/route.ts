import { problemResponse, toProblem } from "./problem";

type Handler<C> = (request: Request, context: C) => Promise<Response> | Response;

/**
 * Wraps a route handler so that whatever it throws answers as a problem response. This is the one place
 * errors are caught; handlers stay a straight line of parse, authorize, call, return.
 */
export function route<C = unknown>(handler: Handler<C>): Handler<C> {
  return async (request, context) => {
    try {
      return await handler(request, context);
    } catch (error) {
      return problemResponse(toProblem(error));
    }
  };
}

export function json(body: unknown, init: ResponseInit = {}): Response {
  const headers = new Headers(init.headers);
  headers.set("Content-Type", "application/json");
  return new Response(JSON.stringify(body), { ...init, headers });
}
