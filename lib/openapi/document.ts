import path from "node:path";
import { createSwaggerSpec } from "next-swagger-doc";
import { z } from "zod";
import { hookExamples } from "../builds/auto/examples";
import { parameterComponents } from "./parameters";
import "./schema-modules";

const problemSchema = z
  .object({
    type: z.string().describe("A URI reference identifying the problem type; about:blank for plain HTTP statuses"),
    title: z.string(),
    status: z.number().int(),
    detail: z.string().describe("What went wrong, in a sentence a person can act on"),
    errors: z
      .array(
        z.object({
          field: z.string().describe("Where: body.email, query.start_date, path.date, form.password"),
          message: z.string(),
        }),
      )
      .optional()
      .describe("For invalid input: each bad field"),
  })
  .meta({ id: "Problem" });

const problemResponses: Record<string, [string, number, string?]> = {
  BadRequest: [
    "The request fails validation or breaks a rule of this endpoint: the detail names it, and `errors` lists each " +
      "bad field (every request that fails validation answers 400, the build service's status for a bad POST /builds)",
    400,
  ],
  Unauthorized: ["Missing, malformed, expired or revoked credentials", 401, "WWW-Authenticate"],
  Forbidden: ["Signed in, but not allowed: not the build's creator nor an admin, or a cross-origin cookie write", 403],
  NotFound: ["The resource does not exist", 404],
  Conflict: ["The request conflicts with the resource's current state", 409],
  ContentTooLarge: ["The request body is larger than the endpoint reads", 413],
  TooManyRequests: ["Too many attempts; wait for Retry-After seconds", 429, "Retry-After"],
  BadGateway: ["The upstream source answered with an error or a page that cannot be read", 502],
  UnsupportedMediaType: ["The body is not in the media type the endpoint reads (application/json)", 415],
  ServiceUnavailable: ["Temporarily unable to take the request; retry after Retry-After seconds", 503, "Retry-After"],
  GatewayTimeout: ["The upstream source did not answer in time", 504],
};

function responseComponents() {
  const responses: Record<string, object> = {
    NotModified: { description: "The representation matches If-None-Match; no body" },
  };
  for (const [name, [description, , header]] of Object.entries(problemResponses)) {
    responses[name] = {
      description,
      ...(header && { headers: { [header]: { schema: { type: "string" } } } }),
      content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } },
    };
  }
  return responses;
}

/** Component schemas generated from every zod schema registered with `.meta({ id })`. */
function schemaComponents(): Record<string, object> {
  // The problem schema is declared above, so it is registered before this runs.
  void problemSchema;
  const { schemas } = z.toJSONSchema(z.globalRegistry, {
    // Requests are described as clients send them (before defaults and transforms apply).
    io: "input",
    unrepresentable: "any",
    uri: (id) => `#/components/schemas/${id}`,
  });
  for (const schema of Object.values(schemas)) {
    delete (schema as Record<string, unknown>).$schema;
    delete (schema as Record<string, unknown>).$id;
    dropSafeIntegerBounds(schema);
  }
  return schemas;
}

/**
 * zod writes every `.int()` as bounded by JavaScript's safe integers (-9007199254740991...), which says nothing
 * to a reader and which Swagger UI then offers as the example value (`"ttl_seconds": -9007199254740991`).
 */
function dropSafeIntegerBounds(node: unknown): void {
  if (!node || typeof node !== "object") return;
  const record = node as Record<string, unknown>;
  if (record.minimum === Number.MIN_SAFE_INTEGER) delete record.minimum;
  if (record.maximum === Number.MAX_SAFE_INTEGER) delete record.maximum;
  for (const value of Object.values(record)) dropSafeIntegerBounds(value);
}

let cached: object | undefined;

/**
 * The OpenAPI 3.1 description of the API: paths from the @swagger JSDoc blocks beside each route handler
 * (next-swagger-doc), component schemas from the zod schemas that validate the requests. Built once per process.
 */
export function getOpenApiDocument(): object {
  cached ??= createSwaggerSpec({
    apiFolder: "app",
    // Only the route handlers' sources: the default globs also read build output and public/, and trip over
    // folders named like files (app/openapi.json/).
    apis: [path.join(process.cwd(), "app", "**", "route.ts")],
    definition: {
      openapi: "3.1.0",
      // The order /docs shows the groups in: what most readers come for first.
      tags: [
        {
          name: "Rates",
          description:
            "The central bank's exchange rates: read by anyone, fetched and imported by signed-in users and admins",
        },
        { name: "Users", description: "Registration, tokens and the signed-in user" },
        { name: "Builds", description: "Preview builds of the configured repositories" },
      ],
      info: {
        title: "BCV Rates & Previews",
        version: "0.2.0",
        description:
          "Official exchange rates of the Banco Central de Venezuela (every currency it publishes, with " +
          "conversion), and preview builds of configured git repositories. Errors are application/problem+json (RFC 9457). Write calls need a bearer token " +
          "from POST /users/token (or the signed-in browser session).",
      },
      components: {
        schemas: schemaComponents() as never,
        responses: responseComponents() as never,
        parameters: parameterComponents(dropSafeIntegerBounds) as never,
        examples: { ...hookExamples } as never,
        securitySchemes: {
          // The one scheme the API has: Authorize then asks for a token and nothing else (an OAuth flow would
          // add scopes and client fields that mean nothing here).
          bearerAuth: { type: "http", scheme: "bearer", description: "A token from POST /users/token" },
        },
      },
    },
  }) as never;
  return cached;
}
