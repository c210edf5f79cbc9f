import { z } from "zod";
import {
  buildIdParamsSchema,
  buildLogQuerySchema,
  buildLogStreamQuerySchema,
  hookParamsSchema,
  listBuildsQuerySchema,
} from "../builds/schemas";
import { admitQuerySchema, shareIdParamsSchema, ticketQuerySchema } from "../gateway/schemas";
import { convertQuerySchema, rateCardQuerySchema } from "../rates/schemas";
import { userIdParamsSchema } from "../users/schemas";

/**
 * The query and path schemas that validate requests, by the name their parameters take in the API description:
 * each field becomes the component `#/components/parameters/<Name>.<field>`, which the route's @swagger block
 * refers to. Its schema (type, enum, bounds, default), description and example are the zod field's, so the
 * document says what the handler accepts, and a value added to an enum reaches /docs without anyone writing it
 * twice.
 */
const SCHEMAS: Record<string, { in: "query" | "path"; schema: z.ZodObject }> = {
  ListBuildsQuery: { in: "query", schema: listBuildsQuerySchema },
  BuildLogQuery: { in: "query", schema: buildLogQuerySchema },
  BuildLogStreamQuery: { in: "query", schema: buildLogStreamQuerySchema },
  BuildIdParams: { in: "path", schema: buildIdParamsSchema },
  HookParams: { in: "path", schema: hookParamsSchema },
  UserIdParams: { in: "path", schema: userIdParamsSchema },
  ShareIdParams: { in: "path", schema: shareIdParamsSchema },
  TicketQuery: { in: "query", schema: ticketQuerySchema },
  AdmitQuery: { in: "query", schema: admitQuerySchema },
  ConvertQuery: { in: "query", schema: convertQuerySchema },
  RateCardQuery: { in: "query", schema: rateCardQuerySchema },
};

type JsonSchema = {
  $ref?: string;
  $defs?: Record<string, JsonSchema>;
  properties?: Record<string, JsonSchema & { description?: string; example?: unknown }>;
  required?: string[];
};

export function parameterComponents(cleanSchema: (node: unknown) => void): Record<string, object> {
  const parameters: Record<string, object> = {};
  for (const [name, { in: where, schema }] of Object.entries(SCHEMAS)) {
    const generated = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as JsonSchema;
    const own = generated.$ref ? generated.$defs?.[generated.$ref.split("/").pop()!] : generated;
    // Schemas registered with an id are components of their own (lib/openapi/document.ts): refer to those.
    const object = JSON.parse(JSON.stringify(own).replaceAll('"#/$defs/', '"#/components/schemas/')) as JsonSchema;
    cleanSchema(object);
    for (const [field, property] of Object.entries(object.properties ?? {})) {
      const { description, example, ...fieldSchema } = property;
      parameters[`${name}.${field}`] = {
        in: where,
        name: field,
        required: where === "path" || (object.required?.includes(field) ?? false),
        ...(description !== undefined && { description }),
        ...(example !== undefined && { example }),
        schema: fieldSchema,
      };
    }
  }
  return parameters;
}
