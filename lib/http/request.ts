import type { z } from "zod";
import { getEnv } from "../server/env";
import { badRequest, invalidRequest, payloadTooLarge, requestTimeout, unsupportedMediaType } from "./problem";

/**
 * Typed request parsing: each function validates one part of the request with a zod schema and throws a 400
 * problem naming every bad field. Handlers get the schema's output type.
 *
 * Bodies are read up to MAX_BODY_BYTES (413 past it, checked on Content-Length first and while reading), and a
 * JSON body must say so: a `text/plain` body is a "simple" request a foreign page may send without CORS, so
 * parsing it as JSON would hand cross-site forms an API (415 instead).
 */
export function parseQuery<S extends z.ZodType>(request: Request, schema: S): z.output<S> {
  const params = new URL(request.url).searchParams;
  const values: Record<string, string> = {};
  for (const [key, value] of params) values[key] = value;
  return check(schema, values, "query");
}

/**
 * Query parameters every endpoint lets pass unnamed: `_`, the cache-buster that some browser clients (jQuery's
 * `cache: false`) add to every GET.
 */
const TOLERATED_QUERY_PARAMETERS: ReadonlySet<string> = new Set(["_"]);

/**
 * 400 naming each query parameter that is not one of `allowed`, and the allowed ones: a misspelt or borrowed
 * name (`currency` where `currencies` is meant) must not be answered as if it had not been sent.
 */
export function rejectUnknownQuery(request: Request, allowed: readonly string[]): void {
  const names = new Set(new URL(request.url).searchParams.keys());
  const unknown = [...names].filter((name) => !allowed.includes(name) && !TOLERATED_QUERY_PARAMETERS.has(name));
  if (unknown.length === 0) return;
  const takes = allowed.length === 0 ? "takes no query parameters" : `takes ${allowed.join(", ")}`;
  throw badRequest(
    `Unknown query parameter${unknown.length === 1 ? "" : "s"} ${unknown.join(", ")}: this endpoint ${takes}.`,
    unknown.map((name) => ({ field: `query.${name}`, message: `is not a parameter of this endpoint, which ${takes}` })),
  );
}

/** parseQuery, after refusing (400) any parameter the schema does not name (rejectUnknownQuery). */
export function parseKnownQuery<S extends z.ZodObject>(request: Request, schema: S): z.output<S> {
  rejectUnknownQuery(request, Object.keys(schema.shape));
  return parseQuery(request, schema);
}

export async function parseJson<S extends z.ZodType>(request: Request, schema: S): Promise<z.output<S>> {
  assertJsonMediaType(request);
  return parseJsonText(new TextDecoder().decode(await readBody(request)), schema);
}

/**
 * A JSON body that may be left out: no body at all (no bytes, whatever Content-Length says or whether it is
 * sent) is the schema's `{}`, its defaults; a body with anything in it is JSON under the rules of parseJson.
 */
export async function parseOptionalJson<S extends z.ZodType>(request: Request, schema: S): Promise<z.output<S>> {
  const bytes = await readBody(request);
  if (bytes.byteLength === 0) return check(schema, {}, "body");
  assertJsonMediaType(request);
  return parseJsonText(new TextDecoder().decode(bytes), schema);
}

function assertJsonMediaType(request: Request): void {
  const type = mediaType(request);
  if (type !== "application/json" && !type.endsWith("+json")) {
    throw unsupportedMediaType(
      `The request body must be JSON sent with 'Content-Type: application/json'${type ? `, not ${type}` : ""}.`,
      "application/json",
    );
  }
}

function parseJsonText<S extends z.ZodType>(text: string, schema: S): z.output<S> {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw badRequest("The request body must be valid JSON.", [
      { field: "body", message: text.trim() === "" ? "body is empty" : "not valid JSON" },
    ]);
  }
  return check(schema, body, "body");
}

export async function parseForm<S extends z.ZodType>(request: Request, schema: S): Promise<z.output<S>> {
  let form: FormData;
  const bytes = await readBody(request);
  try {
    form = await new Response(bytes, {
      headers: { "Content-Type": request.headers.get("content-type") ?? "" },
    }).formData();
  } catch {
    throw badRequest("The request body must be form data (application/x-www-form-urlencoded or multipart/form-data).", [
      { field: "form", message: "not form data" },
    ]);
  }
  const values: Record<string, string> = {};
  for (const [key, value] of form) if (typeof value === "string") values[key] = value;
  return check(schema, values, "form");
}

export function parseParams<S extends z.ZodType>(params: unknown, schema: S): z.output<S> {
  return check(schema, params, "path");
}

function check<S extends z.ZodType>(schema: S, value: unknown, source: string): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw invalidRequest(result.error, source);
  return result.data;
}

function mediaType(request: Request): string {
  return (request.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
}

/**
 * The body's bytes, refusing (413) more than MAX_BODY_BYTES (or `limit`) without reading past the limit.
 * Webhooks read their raw body here: its signature covers exactly these bytes; workbook imports (POST
 * /rates/import) with their own limit.
 */
export async function readBody(
  request: Request,
  limit = getEnv().MAX_BODY_BYTES,
  options: { timeoutMs?: number } = {},
): Promise<Uint8Array<ArrayBuffer>> {
  const tooLarge = () =>
    payloadTooLarge(`The request body is larger than ${limit} bytes, the most this endpoint reads.`);
  const declared = Number(request.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > limit) throw tooLarge();
  if (!request.body) return new Uint8Array(new ArrayBuffer(0));
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  // `timeoutMs`: a sender that trickles its body must not hold the reader (and what it guards) for long.
  let timedOut = false;
  const timer =
    options.timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          timedOut = true;
          void reader.cancel().catch(() => {});
        }, options.timeoutMs);
  const late = () => requestTimeout(`The request body did not arrive within ${(options.timeoutMs ?? 0) / 1000} s.`);
  try {
    for (;;) {
      const { done, value } = await reader.read().catch((error) => {
        throw timedOut ? late() : error;
      });
      // A cancel makes read() answer `done`: that body is not whole.
      if (timedOut) throw late();
      if (done) break;
      size += value.byteLength;
      if (size > limit) {
        await reader.cancel().catch(() => {});
        throw tooLarge();
      }
      chunks.push(value);
    }
  } finally {
    clearTimeout(timer);
  }
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}
