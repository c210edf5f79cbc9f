import { z } from "zod";
import { prismaErrorCode } from "./prisma-errors";

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
export const requestTimeout = (detail: string) => new HttpProblem(408, "Request Timeout", detail);
export const conflict = (detail: string) => new HttpProblem(409, "Conflict", detail);
export const tooManyRequests = (detail: string, retryAfterSeconds: number) =>
  new HttpProblem(429, "Too Many Requests", detail, { headers: { "Retry-After": String(retryAfterSeconds) } });
export const payloadTooLarge = (detail: string) => new HttpProblem(413, "Content Too Large", detail);
export const unsupportedMediaType = (detail: string, accepted: string) =>
  new HttpProblem(415, "Unsupported Media Type", detail, { headers: { "Accept-Post": accepted } });
export const badGateway = (detail: string) => new HttpProblem(502, "Bad Gateway", detail);
export const serviceUnavailable = (detail: string, retryAfterSeconds?: number) =>
  new HttpProblem(503, "Service Unavailable", detail, {
    headers: retryAfterSeconds === undefined ? undefined : { "Retry-After": String(retryAfterSeconds) },
  });
export const gatewayTimeout = (detail: string) => new HttpProblem(504, "Gateway Timeout", detail);

/**
 * Field errors of a zod error, each path prefixed with where the value came from (body, query, path, form):
 * one entry per field, its distinct messages joined with "; ". A value can break several rules at once (a
 * zero-width space is a control character and has no letter), and the reply must still count one field.
 */
export function fieldErrorsOf(error: z.ZodError, source: string): FieldError[] {
  const messagesOf = new Map<string, string[]>();
  for (const issue of error.issues) {
    const field = [source, ...issue.path.map(String)].join(".");
    const messages = messagesOf.get(field) ?? [];
    if (!messages.includes(issue.message)) messages.push(issue.message);
    messagesOf.set(field, messages);
  }
  return [...messagesOf].map(([field, messages]) => ({ field, message: messages.join("; ") }));
}

/**
 * A 400 naming every invalid field of a request part (the reply lists the first MAX_LISTED_ERRORS). One status
 * for every request that fails validation, whatever rule it breaks (a malformed field, a wrong JSON type, a
 * domain rule): the status the build service's specification gives for a bad POST /builds.
 */
export function invalidRequest(error: z.ZodError, source: string): HttpProblem {
  const errors = fieldErrorsOf(error, source);
  const named = errors
    .slice(0, MAX_LISTED_ERRORS)
    .map((e) => e.field)
    .join(", ");
  const detail =
    errors.length === 1
      ? `Invalid ${errors[0].field}: ${errors[0].message}.`
      : `The request has ${errors.length} invalid fields: ${named}${errors.length > MAX_LISTED_ERRORS ? ", …" : ""}.`;
  return badRequest(detail, errors);
}

/**
 * A problem reply stays small whatever the request held: a body of a million unknown fields once got a 57 MB
 * reply. At most MAX_LISTED_ERRORS field errors are listed (the detail says how many there were), and every
 * text taken from the request is shortened.
 */
export const MAX_LISTED_ERRORS = 20;
const MAX_DETAIL_LENGTH = 1000;
const MAX_FIELD_LENGTH = 200;

const shorten = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

export function problemResponse(problem: HttpProblem): Response {
  const errors = problem.options.errors;
  let detail = shorten(problem.detail, MAX_DETAIL_LENGTH);
  if (errors && errors.length > MAX_LISTED_ERRORS) {
    detail = `${shorten(problem.detail, MAX_DETAIL_LENGTH - 100)} (${errors.length} field errors, the first ${MAX_LISTED_ERRORS} listed)`;
  }
  const body: Record<string, unknown> = {
    type: problem.options.type ?? "about:blank",
    title: problem.title,
    status: problem.status,
    detail,
  };
  if (errors) {
    body.errors = errors.slice(0, MAX_LISTED_ERRORS).map((error) => ({
      field: shorten(error.field, MAX_FIELD_LENGTH),
      message: shorten(error.message, MAX_FIELD_LENGTH),
    }));
  }
  return new Response(JSON.stringify(body), {
    status: problem.status,
    headers: { "Content-Type": "application/problem+json", ...problem.options.headers },
  });
}

/** Maps anything a handler threw to a problem; unexpected faults become a 500 without internals. */
export function toProblem(error: unknown): HttpProblem {
  if (error instanceof HttpProblem) return error;
  if (error instanceof z.ZodError) return invalidRequest(error, "body");
  const prismaCode = prismaErrorCode(error);
  if (prismaCode === "P2002") return conflict("A record with the same unique value already exists.");
  if (prismaCode === "P2025") return notFound("The record does not exist.");
  const storage = storageFault(error);
  if (storage === "full") {
    console.error("Storage full:", error);
    return serviceUnavailable(
      "The server's disk is full, so the request could not be recorded and was not carried out; try again later.",
      60,
    );
  }
  if (storage === "busy") return serviceUnavailable("The database is busy; try again in a moment.", 1);
  if (storage === "unreachable") {
    logUnreachable(error);
    // The driver's message names the database's address: the log has it, the client does not.
    return serviceUnavailable(
      "The database cannot be reached just now, so the request was not carried out; try again in a few seconds.",
      5,
    );
  }
  console.error("Unhandled error in route handler:", error);
  return new HttpProblem(500, "Internal Server Error", "The server failed to handle the request; try again later.");
}

/** One line a few seconds while the database is away, not one per request. */
const UNREACHABLE_LOG_EVERY_MS = 10_000;
let unreachableLoggedAt = 0;

function logUnreachable(error: unknown): void {
  const now = Date.now();
  if (now - unreachableLoggedAt < UNREACHABLE_LOG_EVERY_MS) return;
  unreachableLoggedAt = now;
  console.error(`The database cannot be reached; requests answer 503: ${(error as Error).message}`);
}

/**
 * Whether an error (or one it wraps) is the storage refusing a write: SQLite's SQLITE_FULL / a file write's
 * ENOSPC ("full"), SQLITE_BUSY ("busy"), or a database server that cannot be reached or ends the connection
 * ("unreachable": PostgreSQL stopped, restarting or failing over). Prisma wraps the driver's error in its own
 * (the pg adapter's under `meta.driverAdapterError`), so the whole chain of causes and messages is looked at.
 */
export function storageFault(error: unknown): "full" | "busy" | "unreachable" | undefined {
  const seen = new Set<unknown>();
  const texts: string[] = [];
  const visit = (value: unknown, depth: number) => {
    if (value === null || typeof value !== "object" || seen.has(value) || depth > 5) return;
    seen.add(value);
    const record = value as Record<string, unknown>;
    for (const key of ["code", "message", "originalCode", "originalMessage", "kind"]) {
      if (typeof record[key] === "string" || typeof record[key] === "number") texts.push(String(record[key]));
    }
    for (const key of ["cause", "meta", "driverAdapterError"]) visit(record[key], depth + 1);
  };
  visit(error, 0);
  const text = texts.join("\n");
  if (/SQLITE_FULL|database or disk is full|ENOSPC|no space left on device/i.test(text)) return "full";
  if (/SQLITE_BUSY|database is locked/i.test(text)) return "busy";
  if (UNREACHABLE.test(text)) return "unreachable";
  return undefined;
}

/**
 * A database server out of reach: the socket's errors, PostgreSQL's connection exceptions (SQLSTATE class 08) and
 * shutdowns (57P01-57P03: an administrator's stop, a crash, still starting), the pg driver's lost connection,
 * and the Prisma adapter's names for the same.
 */
const UNREACHABLE =
  /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|EPIPE|08\d{3}|57P0[123]|P1001|P1017|DatabaseNotReachable|ConnectionClosed)$|Connection terminated|Can't reach database server|the database system is (starting up|shutting down|in recovery mode)/im;
