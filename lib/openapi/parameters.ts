import { z } from "zod";
import { installCacheKeyParamsSchema } from "../builds/install-cache/schemas";
import {
  branchQuerySchema,
  buildIdParamsSchema,
  buildLogQuerySchema,
  buildLogStreamQuerySchema,
  hookParamsSchema,
  listBuildErrorsQuerySchema,
  listBuildsQuerySchema,
  rawBuildLogQuerySchema,
} from "../builds/schemas";
import { admitQuerySchema, shareIdParamsSchema, shareSecretParamsSchema, ticketQuerySchema } from "../gateway/schemas";
import {
  convertQuerySchema,
  latestRateQuerySchema,
  rateByDateQuerySchema,
  rateCardQuerySchema,
  rateCurrenciesQuerySchema,
  rateDateParamsSchema,
  rateEmbedQuerySchema,
  rateHistoryQuerySchema,
  rateImportQuerySchema,
} from "../rates/schemas";
import { webhookParamsSchema } from "../rates/webhooks/schemas";
import { userIdParamsSchema } from "../users/schemas";

/**
 * The query and path schemas that validate requests, by the name their parameters take in the API description:
 * each field becomes the component `#/components/parameters/<Name>.<field>`, which the route's @swagger block
 * refers to. Its schema (type, enum, bounds, default), description and examples are the zod field's, so the
 * document says what the handler accepts, and a value added to an enum reaches /docs without anyone writing it
 * twice.
 */
export const PARAMETER_SCHEMAS: Record<string, { in: "query" | "path"; schema: z.ZodObject }> = {
  ListBuildsQuery: { in: "query", schema: listBuildsQuerySchema },
  ListBuildErrorsQuery: { in: "query", schema: listBuildErrorsQuerySchema },
  BuildLogQuery: { in: "query", schema: buildLogQuerySchema },
  BuildLogStreamQuery: { in: "query", schema: buildLogStreamQuerySchema },
  RawBuildLogQuery: { in: "query", schema: rawBuildLogQuerySchema },
  BuildIdParams: { in: "path", schema: buildIdParamsSchema },
  InstallCacheKeyParams: { in: "path", schema: installCacheKeyParamsSchema },
  HookParams: { in: "path", schema: hookParamsSchema },
  BranchQuery: { in: "query", schema: branchQuerySchema },
  UserIdParams: { in: "path", schema: userIdParamsSchema },
  ShareIdParams: { in: "path", schema: shareIdParamsSchema },
  ShareSecretParams: { in: "path", schema: shareSecretParamsSchema },
  TicketQuery: { in: "query", schema: ticketQuerySchema },
  AdmitQuery: { in: "query", schema: admitQuerySchema },
  RateCurrenciesQuery: { in: "query", schema: rateCurrenciesQuerySchema },
  LatestRateQuery: { in: "query", schema: latestRateQuerySchema },
  RateDateParams: { in: "path", schema: rateDateParamsSchema },
  RateByDateQuery: { in: "query", schema: rateByDateQuerySchema },
  RateHistoryQuery: { in: "query", schema: rateHistoryQuerySchema },
  RateImportQuery: { in: "query", schema: rateImportQuerySchema },
  RateWebhookParams: { in: "path", schema: webhookParamsSchema },
  ConvertQuery: { in: "query", schema: convertQuerySchema },
  RateCardQuery: { in: "query", schema: rateCardQuerySchema },
  RateEmbedQuery: { in: "query", schema: rateEmbedQuerySchema },
};

type Property = { description?: string; example?: unknown; examples?: unknown[] };
type JsonSchema = {
  $ref?: string;
  $defs?: Record<string, JsonSchema>;
  properties?: Record<string, JsonSchema & Property>;
  required?: string[];
};

export function parameterComponents(cleanSchema: (node: unknown) => void): Record<string, object> {
  const parameters: Record<string, object> = {};
  for (const [name, { in: where, schema }] of Object.entries(PARAMETER_SCHEMAS)) {
    const generated = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as JsonSchema;
    const own = generated.$ref ? generated.$defs?.[generated.$ref.split("/").pop()!] : generated;
    // Schemas registered with an id are components of their own (lib/openapi/document.ts): refer to those.
    const object = JSON.parse(JSON.stringify(own).replaceAll('"#/$defs/', '"#/components/schemas/')) as JsonSchema;
    cleanSchema(object);
    for (const [field, property] of Object.entries(object.properties ?? {})) {
      const { description, example, examples, ...fieldSchema } = property;
      parameters[`${name}.${field}`] = {
        in: where,
        name: field,
        required: where === "path" || (object.required?.includes(field) ?? false),
        ...(description !== undefined && { description }),
        ...(example !== undefined && { example }),
        // A parameter's examples are named (Swagger UI offers them by name): each is named by its value.
        ...(examples !== undefined && {
          examples: Object.fromEntries(examples.map((value) => [String(value), { value }])),
        }),
        schema: fieldSchema,
      };
    }
  }
  return parameters;
}
