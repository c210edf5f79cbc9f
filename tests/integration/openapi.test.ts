import fs from "node:fs";
import path from "node:path";
import SwaggerParser from "@apidevtools/swagger-parser";
import type { OpenAPIV3_1 } from "openapi-types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUILD_STATUSES } from "@/lib/builds/status";
import { type AppServer, sharedAppServer } from "../support/app-server";

let app: AppServer;
let document: OpenAPIV3_1.Document;
beforeAll(async () => {
  app = await sharedAppServer();
  document = (await (await app.fetch("/openapi.json")).json()) as OpenAPIV3_1.Document;
});
afterAll(() => app?.stop());

const appFolder = path.resolve(import.meta.dirname, "..", "..", "app");
const httpMethods = ["GET", "POST", "PUT", "PATCH", "DELETE"];

/** Every API route handler in app/ with its OpenAPI path (`app/rates/[date]/route.ts` -> `/rates/{date}`). */
function apiRoutes(): { path: string; methods: string[] }[] {
  const files = fs
    .readdirSync(appFolder, { recursive: true, encoding: "utf8" })
    .filter((file) => path.basename(file) === "route.ts" && !file.startsWith("api/auth"));
  return files
    .filter((file) => file !== "openapi.json/route.ts")
    .map((file) => {
      const source = fs.readFileSync(path.join(appFolder, file), "utf8");
      const segments = path
        .dirname(file)
        .split(path.sep)
        .filter((segment) => segment !== ".");
      const routePath = `/${segments.map((segment) => segment.replace(/^\[(.+)\]$/, "{$1}")).join("/")}`;
      const methods = httpMethods.filter((method) => new RegExp(`export const ${method}\\b`).test(source));
      return { path: routePath, methods };
    });
}

describe("GET /openapi.json", () => {
  it("is a valid OpenAPI 3.1 document whose references all resolve", async () => {
    expect(document.openapi).toBe("3.1.0");
    await expect(SwaggerParser.validate(structuredClone(document) as never)).resolves.toBeTruthy();
  });

  it("describes every method of every route handler", () => {
    const documented = document.paths ?? {};
    for (const route of apiRoutes()) {
      const item = documented[route.path] ?? documented[`${route.path}/`];
      expect(item, `${route.path} is not in the document`).toBeDefined();
      for (const method of route.methods) {
        expect(item?.[method.toLowerCase() as "get"], `${method} ${route.path} is not documented`).toBeDefined();
      }
    }
  });

  it("generates its schemas from the zod schemas that validate requests", () => {
    const registerUser = document.components?.schemas?.RegisterUser as OpenAPIV3_1.SchemaObject;
    expect(registerUser.required).toEqual(["email", "password"]);
    expect(registerUser.properties?.password).toMatchObject({ minLength: 8 });
  });

  it("takes its parameters from the zod schemas that validate them: GET /builds' status offers every status", () => {
    const operation = document.paths?.["/builds"]?.get;
    expect(operation?.parameters).toContainEqual({ $ref: "#/components/parameters/ListBuildsQuery.status" });
    const status = document.components?.parameters?.["ListBuildsQuery.status"] as OpenAPIV3_1.ParameterObject;
    expect(status).toMatchObject({ in: "query", name: "status", required: false });
    expect((status.schema as OpenAPIV3_1.SchemaObject).enum).toEqual([...BUILD_STATUSES]);
    expect(BUILD_STATUSES).toContain("sleeping");
    const buildId = document.components?.parameters?.["BuildIdParams.build_id"] as OpenAPIV3_1.ParameterObject;
    expect(buildId).toMatchObject({ in: "path", name: "build_id", required: true });
  });

  it("declares the bearer scheme on protected operations", () => {
    expect(document.components?.securitySchemes?.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
    expect(document.paths?.["/users/me"]?.get?.security).toContainEqual({ bearerAuth: [] });
  });
});

describe("GET /openapi.json as /docs shows it", () => {
  it("lists the rate operations first", () => {
    expect(document.tags?.map((tag) => tag.name)).toEqual(["Rates", "Users", "Builds"]);
  });

  it("gives no operation's example a safe-integer bound (ttl_seconds: -9007199254740991)", () => {
    expect(JSON.stringify(document)).not.toMatch(/9007199254740991/);
    const extend = document.components?.schemas?.ExtendBuild as OpenAPIV3_1.SchemaObject;
    expect(extend.properties?.ttl_seconds).toMatchObject({ type: "integer", exclusiveMinimum: 0, example: 3600 });
  });

  it("offers Authorize a bearer token only: no OAuth flow, so no scopes or client fields", () => {
    expect(Object.keys(document.components?.securitySchemes ?? {})).toEqual(["bearerAuth"]);
    const requirements = Object.values(document.paths ?? {}).flatMap((item) =>
      Object.values(item as Record<string, OpenAPIV3_1.OperationObject>).flatMap(
        (operation) => operation.security ?? [],
      ),
    );
    expect(requirements.length).toBeGreaterThan(0);
    for (const requirement of requirements) expect(requirement).toEqual({ bearerAuth: [] });
  });

  it("gives every date and instant a real example, so Swagger UI invents none from the pattern (6800-02-29)", () => {
    const dated: { at: string; format: string; example: unknown }[] = [];
    // A parameter carries its example beside its schema (Swagger UI shows it in the parameter's box).
    const walk = (node: unknown, at: string, parameterExample?: unknown) => {
      if (!node || typeof node !== "object") return;
      const record = node as Record<string, unknown>;
      if (record.format === "date" || record.format === "date-time") {
        dated.push({ at, format: record.format, example: record.example ?? parameterExample });
      }
      for (const [key, value] of Object.entries(record)) {
        walk(value, `${at}/${key}`, key === "schema" && "in" in record ? record.example : undefined);
      }
    };
    walk(document, "#");
    expect(dated.length).toBeGreaterThan(10);
    const shapes = { date: /^20\d\d-\d\d-\d\d$/, "date-time": /^20\d\d-\d\d-\d\dT\d\d:\d\d:\d\d/ };
    const unreal = dated.filter(
      ({ format, example }) =>
        typeof example !== "string" ||
        !shapes[format as keyof typeof shapes].test(example) ||
        Number.isNaN(Date.parse(example)),
    );
    expect(unreal).toEqual([]);
  });

  it("puts a lock only on operations that need credentials: public reads have none", () => {
    for (const [route, method] of [
      ["/rates/", "get"],
      ["/convert", "get"],
      ["/builds", "get"],
      ["/builds/{build_id}", "get"],
      ["/builds/{build_id}/logs", "get"],
    ] as const) {
      const operation = (document.paths?.[route] as Record<string, OpenAPIV3_1.OperationObject> | undefined)?.[method];
      expect(operation, `${method} ${route}`).toBeDefined();
      expect(operation?.security, `${method} ${route}`).toBeUndefined();
    }
  });
});

describe("GET /docs", () => {
  it("serves the Swagger UI page", async () => {
    const response = await app.fetch("/docs");
    expect(response.status).toBe(200);
    expect(await response.text()).toContain("Loading the API description");
  });
});
