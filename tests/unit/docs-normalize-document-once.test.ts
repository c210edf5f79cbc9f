import openApi31Strategy from "swagger-client/es/resolver/strategies/openapi-3-1-apidom/index.js";
import { makeResolveSubtree } from "swagger-client/es/subtree-resolver/index.js";
import { afterEach, describe, expect, it, vi } from "vitest";
import { normalizeDocumentOnce } from "@/components/docs/normalize-document-once";

/**
 * /docs normalizes the API's document once for Swagger UI's resolver (components/docs/normalize-document-once.ts),
 * with Swagger UI's own resolver. The document is a small one with the kinds of references the API's has
 * (tests/e2e/swagger-docs.spec.ts opens every operation of the real one): to parameters, to responses, to schemas,
 * and from schemas to schemas.
 */

const problem = { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } };
const document = {
  openapi: "3.1.0",
  info: { title: "Rates and builds", version: "1" },
  paths: {
    "/rates/{date}": {
      get: {
        parameters: [{ $ref: "#/components/parameters/Date" }],
        responses: {
          200: {
            description: "The rate",
            content: { "application/json": { schema: { $ref: "#/components/schemas/Rate" } } },
          },
          404: { $ref: "#/components/responses/NotFound" },
        },
      },
    },
    "/builds": {
      get: {
        responses: {
          200: {
            description: "Builds",
            content: { "application/json": { schema: { $ref: "#/components/schemas/BuildList" } } },
          },
        },
      },
      post: {
        requestBody: { content: { "application/json": { schema: { $ref: "#/components/schemas/CreateBuild" } } } },
        responses: {
          201: {
            description: "Queued",
            content: { "application/json": { schema: { $ref: "#/components/schemas/Build" } } },
          },
          422: { description: "Invalid", content: problem },
        },
      },
    },
  },
  components: {
    parameters: { Date: { name: "date", in: "path", required: true, schema: { type: "string", format: "date" } } },
    responses: { NotFound: { description: "Not found", content: problem } },
    schemas: {
      Problem: { type: "object", properties: { title: { type: "string" }, status: { type: "integer" } } },
      Rate: { type: "object", properties: { dollar: { type: "number" }, date: { type: "string" } } },
      Repository: { type: "object", properties: { repository: { type: "string" }, ref: { type: "string" } } },
      CreateBuild: {
        type: "object",
        properties: { repositories: { type: "array", items: { $ref: "#/components/schemas/Repository" } } },
      },
      Build: {
        type: "object",
        properties: {
          build_id: { type: "string" },
          repositories: { type: "array", items: { $ref: "#/components/schemas/Repository" } },
        },
      },
      BuildList: {
        type: "object",
        properties: { builds: { type: "array", items: { $ref: "#/components/schemas/Build" } } },
      },
    },
  },
};
const options = { baseDoc: "http://127.0.0.1/openapi.json" };
const resolveSubtree = makeResolveSubtree({ strategies: [openApi31Strategy] });
const OPENINGS = [
  ["paths", "/rates/{date}", "get"],
  ["paths", "/builds", "post"],
  ["paths", "/builds", "get"],
  ["components", "schemas", "BuildList"],
];

function docsPage() {
  const swaggerUiResolver = vi.fn(resolveSubtree);
  return {
    swaggerUiResolver,
    open: normalizeDocumentOnce({ fn: { resolveSubtree: swaggerUiResolver } }).fn.resolveSubtree,
  };
}

/** How many times the document was normalized from scratch (converted to ApiDOM), not handed over normalized. */
function normalizations(normalize: { mock: { calls: object[][] } }): number {
  // Also called on ApiDOM elements, after each resolving: those are not the document from scratch.
  const fromScratch = (spec: object) => Object.getPrototypeOf(spec) === Object.prototype && !("$$normalized" in spec);
  return normalize.mock.calls.filter(([spec]) => fromScratch(spec)).length;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("/docs' Swagger UI plugin that normalizes the document once", () => {
  it("gives every opening what Swagger UI's resolver alone gives", async () => {
    const page = docsPage();
    for (const path of OPENINGS) {
      const alone = await resolveSubtree(structuredClone(document), path, options);
      expect(alone.spec, path.join(" ")).toBeTruthy();
      expect(await page.open(document, path, options), path.join(" ")).toEqual(alone);
    }
  });

  it("normalizes the document once for every opening, and again when the document changes", async () => {
    const normalize = vi.spyOn(openApi31Strategy, "normalize");
    const page = docsPage();
    for (const path of OPENINGS) await page.open(document, path, options);
    expect(normalizations(normalize)).toBe(1);
    expect(page.swaggerUiResolver).toHaveBeenCalledTimes(OPENINGS.length);

    await page.open(structuredClone(document), OPENINGS[0], options);
    expect(normalizations(normalize)).toBe(2);
  });

  it("hands a document of another version to Swagger UI's resolver as it is", async () => {
    const swaggerUiResolver = vi.fn(async () => ({ spec: null, errors: [] }));
    const open = normalizeDocumentOnce({ fn: { resolveSubtree: swaggerUiResolver } }).fn.resolveSubtree;
    const older = { ...structuredClone(document), openapi: "3.0.3" };
    await open(older, OPENINGS[0], options);
    expect(swaggerUiResolver).toHaveBeenCalledExactlyOnceWith(older, OPENINGS[0], options);
  });
});
