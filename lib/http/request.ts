import { z } from "zod";
import { invalidRequest, unprocessable } from "./problem";

/**
 * Typed request parsing: each function validates one part of the request with a zod schema and throws a 422
 * problem naming every bad field. Handlers get the schema's output type.
 */
export function parseQuery<S extends z.ZodType>(request: Request, schema: S): z.output<S> {
  const params = new URL(request.url).searchParams;
  const values: Record<string, string> = {};
  for (const [key, value] of params) values[key] = value;
  return check(schema, values, "query");
}

export async function parseJson<S extends z.ZodType>(request: Request, schema: S): Promise<z.output<S>> {
  const text = await request.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw unprocessable("The request body must be valid JSON.", [
      { field: "body", message: text.trim() === "" ? "body is empty" : "not valid JSON" },
    ]);
  }
  return check(schema, body, "body");
}

export async function parseForm<S extends z.ZodType>(request: Request, schema: S): Promise<z.output<S>> {
  let form: FormData;
  try {
    form = await request.formData();
  } catch {
    throw unprocessable(
      "The request body must be form data (application/x-www-form-urlencoded or multipart/form-data).",
      [{ field: "form", message: "not form data" }],
    );
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
