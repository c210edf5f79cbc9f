import fs from "node:fs";
import path from "node:path";
import type { OpenAPIV3_1 } from "openapi-types";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import * as installCacheSchemas from "@/lib/builds/install-cache/schemas";
import * as buildSchemas from "@/lib/builds/schemas";
import { BUILD_STATUSES } from "@/lib/builds/status";
import * as gatewaySchemas from "@/lib/gateway/schemas";
import { getOpenApiDocument } from "@/lib/openapi/document";
import { PARAMETER_SCHEMAS } from "@/lib/openapi/parameters";
import * as rateSchemas from "@/lib/rates/schemas";
import * as webhookSchemas from "@/lib/rates/webhooks/schemas";
import * as userSchemas from "@/lib/users/schemas";

/**
 * The API description's query and path parameters are the zod schemas the handlers validate with: each is a
 * component generated from a zod field, and each operation refers to those of the schemas its handler parses.
 * A parameter written by hand in a route's @swagger block drifts from what the handler accepts (GET /builds'
 * `status` once lacked `sleeping`).
 */

const document = getOpenApiDocument() as OpenAPIV3_1.Document;
const root = path.resolve(import.meta.dirname, "..", "..");
const appFolder = path.join(root, "app");
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

type Parameter = OpenAPIV3_1.ParameterObject | OpenAPIV3_1.ReferenceObject;

/** Query and path parameters nothing validates (the handler only asks whether one is there). */
const UNVALIDATED = ["GET /gateway/page: unreachable"];

function operations() {
  return Object.entries(document.paths ?? {}).flatMap(([route, item]) =>
    METHODS.flatMap((method) => {
      const operation = (item as Record<string, OpenAPIV3_1.OperationObject>)[method.toLowerCase()];
      if (!operation) return [];
      const parameters = [
        ...((item?.parameters ?? []) as Parameter[]),
        ...((operation.parameters ?? []) as Parameter[]),
      ];
      return [{ route, method, parameters }];
    }),
  );
}

function resolved(parameter: Parameter): OpenAPIV3_1.ParameterObject {
  if (!("$ref" in parameter)) return parameter;
  const name = parameter.$ref.replace("#/components/parameters/", "");
  const component = document.components?.parameters?.[name] as OpenAPIV3_1.ParameterObject | undefined;
  expect(component, `${parameter.$ref} resolves`).toBeDefined();
  return component!;
}

/** A field and what its optional and default wrappers wrap, outermost first. */
function layers(field: z.ZodType): z.ZodType[] {
  const found = [field];
  for (let inner = field; inner instanceof z.ZodOptional || inner instanceof z.ZodDefault; ) {
    inner = inner.unwrap() as z.ZodType;
    found.push(inner);
  }
  return found;
}

/** The values an enum field accepts; undefined for other fields. */
function enumValues(field: z.ZodType): unknown[] | undefined {
  const inner = layers(field).at(-1);
  if (inner instanceof z.ZodEnum) return inner.options;
  if (inner instanceof z.ZodLiteral) return [...inner.values];
  return undefined;
}

/** The schemas the modules export, by the name a route imports them with. */
const exportedSchemas = new Map<string, unknown>(
  [buildSchemas, installCacheSchemas, gatewaySchemas, rateSchemas, webhookSchemas, userSchemas].flatMap((module) =>
    Object.entries(module),
  ),
);

/** Each API route file, its OpenAPI path, and per method the schemas its handler passes to parseQuery/parseKnownQuery/parseParams. */
function routeFiles() {
  return fs
    .readdirSync(appFolder, { recursive: true, encoding: "utf8" })
    .filter(
      (file) => path.basename(file) === "route.ts" && !file.startsWith("api/auth") && file !== "openapi.json/route.ts",
    )
    .map((file) => {
      const source = fs.readFileSync(path.join(appFolder, file), "utf8");
      const segments = path
        .dirname(file)
        .split(path.sep)
        .filter((segment) => segment !== ".");
      const route = `/${segments.map((segment) => segment.replace(/^\[(.+)\]$/, "{$1}")).join("/")}`;
      // A handler runs from its `export const METHOD` to the next one.
      const handlers = [...source.matchAll(/^export const (GET|POST|PUT|PATCH|DELETE)\b/gm)].map(
        (match, index, all) => ({
          method: match[1],
          body: source.slice(match.index, all[index + 1]?.index ?? source.length),
        }),
      );
      return {
        file,
        route,
        handlers: handlers.map(({ method, body }) => ({
          method,
          parsed: [...body.matchAll(/\bparse(?:Query|KnownQuery|Params)\(\s*[^,]+,\s*([^)]+?)\s*\)/g)].map(
            (match) => match[1],
          ),
        })),
      };
    });
}

describe("GET /openapi.json: every parameter from the zod schema that validates it", () => {
  it("refers to a generated component for every query and path parameter: none is written by hand", () => {
    const handWritten: string[] = [];
    let referred = 0;
    for (const { route, method, parameters } of operations()) {
      for (const parameter of parameters) {
        if ("$ref" in parameter) {
          expect(parameter.$ref).toMatch(/^#\/components\/parameters\/\w+\.\w+$/);
          referred++;
        } else if (parameter.in === "query" || parameter.in === "path") {
          handWritten.push(`${method} ${route}: ${parameter.name}`);
        }
      }
    }
    expect(handWritten).toEqual(UNVALIDATED);
    expect(referred).toBeGreaterThan(40);
  });

  it("takes each component's enum and description from its zod field", () => {
    let enums = 0;
    for (const [name, { in: where, schema }] of Object.entries(PARAMETER_SCHEMAS)) {
      for (const [field, fieldSchema] of Object.entries(schema.shape) as [string, z.ZodType][]) {
        const component = document.components?.parameters?.[`${name}.${field}`] as OpenAPIV3_1.ParameterObject;
        expect(component, `${name}.${field}`).toMatchObject({ in: where, name: field });
        expect(component.required, `${name}.${field} required`).toBe(where === "path" || !fieldSchema.isOptional());
        const description = layers(fieldSchema).find((layer) => layer.description)?.description;
        expect(description, `${name}.${field} is described`).toBeTruthy();
        expect(component.description, `${name}.${field} description`).toBe(description);
        const values = enumValues(fieldSchema);
        if (values === undefined) continue;
        enums++;
        const generated = component.schema as OpenAPIV3_1.SchemaObject;
        expect(generated.enum ?? [generated.const], `${name}.${field} enum`).toEqual(values);
      }
    }
    expect(enums).toBeGreaterThanOrEqual(6);
  });

  it("GET /builds' status offers every build status, sleeping included", () => {
    expect(document.paths?.["/builds"]?.get?.parameters).toContainEqual({
      $ref: "#/components/parameters/ListBuildsQuery.status",
    });
    const status = resolved({ $ref: "#/components/parameters/ListBuildsQuery.status" });
    expect((status.schema as OpenAPIV3_1.SchemaObject).enum).toEqual([...BUILD_STATUSES]);
    expect(BUILD_STATUSES).toContain("sleeping");
  });

  it("documents each handler's parameters from the very schemas it parses, every field of them", () => {
    const checked: string[] = [];
    for (const { file, route, handlers } of routeFiles()) {
      const item = (document.paths?.[route] ?? document.paths?.[`${route}/`]) as
        | Record<string, OpenAPIV3_1.OperationObject>
        | undefined;
      for (const { method, parsed } of handlers) {
        if (parsed.length === 0) continue;
        const operation = item?.[method.toLowerCase()];
        expect(operation, `${method} ${route} is documented`).toBeDefined();
        const expected = parsed.flatMap((identifier) => {
          const schema = exportedSchemas.get(identifier);
          const entry = Object.entries(PARAMETER_SCHEMAS).find(([, candidate]) => candidate.schema === schema);
          expect(entry, `app/${file}: ${method} parses with ${identifier}, which is no parameter schema`).toBeDefined();
          const [name, { schema: object }] = entry!;
          return Object.keys(object.shape).map((field) => `#/components/parameters/${name}.${field}`);
        });
        const documented = ((operation?.parameters ?? []) as Parameter[])
          .filter((parameter) => "$ref" in parameter)
          .map((parameter) => (parameter as OpenAPIV3_1.ReferenceObject).$ref);
        expect(documented.sort(), `${method} ${route}`).toEqual([...new Set(expected)].sort());
        checked.push(`${method} ${route}`);
      }
    }
    expect(checked).toContain("GET /builds");
    expect(checked).toContain("GET /rates/{date}");
    expect(checked).toContain("DELETE /rates/webhooks/{id}");
    expect(checked.length).toBeGreaterThan(25);
  });
});
