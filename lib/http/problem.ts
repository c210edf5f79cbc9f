import { Prisma } from "@prisma/client";
import { z } from "zod";

/** One field that failed validation: where it is (`body.email`, `query.start_date`) and what is wrong. */
export interface FieldError {
  field: string;
  message: string;
}

/**
 * An RFC 9457 problem. Domain code throws these (usually through the helpers below) and the route wrapper
 * turns them into `application/problem+json` responses; handlers never catch.
 */
export class HttpProblem extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    readonly detail: string,
    readonly options: { errors?: FieldError[]; headers?: Record<string, string>; type?: string } = {},
  ) {
    super(detail);
  }
}

export const badRequest = (detail: string, errors?: FieldError[]) =>
  new HttpProblem(400, "Bad Request", detail, { errors });
export const unauthorized = (detail: string) =>
  new HttpProblem(401, "Unauthorized", detail, { headers: { "WWW-Authenticate": 'Bearer realm="api"' } });
export const forbidden = (detail: string) => new HttpProblem(403, "Forbidden", detail);
export const notFound = (detail: string) => new HttpProblem(404, "Not Found", detail);
export const conflict = (detail: string) => new HttpProblem(409, "Conflict", detail);
export const unprocessable = (detail: string, errors?: FieldError[]) =>
  new HttpProblem(422, "Unprocessable Content", detail, { errors });
export const tooManyRequests = (detail: string, retryAfterSeconds: number) =>
  new HttpProblem(429, "Too Many Requests", detail, { headers: { "Retry-After": String(retryAfterSeconds) } });
export const badGateway = (detail: string) => new HttpProblem(502, "Bad Gateway", detail);
export const serviceUnavailable = (detail: string, retryAfterSeconds?: number) =>
  new HttpProblem(503, "Service Unavailable", detail, {
    headers: retryAfterSeconds === undefined ? undefined : { "Retry-After": String(retryAfterSeconds) },
  });
export const gatewayTimeout = (detail: string) => new HttpProblem(504, "Gateway Timeout", detail);

/** Field errors of a zod error, each path prefixed with where the value came from (body, query, path, form). */
export function fieldErrorsOf(error: z.ZodError, source: string): FieldError[] {
  return error.issues.map((issue) => ({
    field: [source, ...issue.path.map(String)].join("."),
    message: issue.message,
  }));
}

/** A 422 naming every invalid field of a request part. */
export function invalidRequest(error: z.ZodError, source: string): HttpProblem {
  const errors = fieldErrorsOf(error, source);
  const detail =
    errors.length === 1
      ? `Invalid ${errors[0].field}: ${errors[0].message}.`
      : `The request has ${errors.length} invalid fields: ${errors.map((e) => e.field).join(", ")}.`;
  return unprocessable(detail, errors);
}

export function problemResponse(problem: HttpProblem): Response {
  const body: Record<string, unknown> = {
    type: problem.options.type ?? "about:blank",
    title: problem.title,
    status: problem.status,
    detail: problem.detail,
  };
  if (problem.options.errors) body.errors = problem.options.errors;
  return new Response(JSON.stringify(body), {
    status: problem.status,
    headers: { "Content-Type": "application/problem+json", ...problem.options.headers },
  });
}

/** Maps anything a handler threw to a problem; unexpected faults become a 500 without internals. */
export function toProblem(error: unknown): HttpProblem {
  if (error instanceof HttpProblem) return error;
  if (error instanceof z.ZodError) return invalidRequest(error, "body");
  if (error instanceof Prisma.PrismaClientKnownRequestError) {
    if (error.code === "P2002") return conflict("A record with the same unique value already exists.");
    if (error.code === "P2025") return notFound("The record does not exist.");
  }
  console.error("Unhandled error in route handler:", error);
  return new HttpProblem(500, "Internal Server Error", "The server failed to handle the request; try again later.");
}
