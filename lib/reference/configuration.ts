import { z } from "zod";
import { configSchema } from "../builds/config";
import { envSchema } from "../server/env";

/**
 * The configuration reference, generated from the zod schemas that validate the settings at start, so that it
 * cannot say otherwise than the code: every key of the builds configuration and every environment variable, with
 * its type, default and description. `npm run docs:config` writes both files; a unit test fails when either is
 * not what this module makes.
 */

export const CONFIGURATION_REFERENCE_FILE = "docs/configuration.md";
export const BUILDS_CONFIG_SCHEMA_FILE = "docs/builds.config.schema.json";

type JsonSchema = {
  type?: string | string[];
  description?: string;
  default?: unknown;
  enum?: unknown[];
  const?: unknown;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  not?: JsonSchema;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  minItems?: number;
  pattern?: string;
  format?: string;
  [keyword: string]: unknown;
};

/** JSON Schema has no format of its own for these; the pattern zod writes beside them says the same. */
const ZOD_ONLY_FORMATS = new Set(["starts_with", "ends_with", "includes"]);

/** What `z.toJSONSchema` writes, minus what only zod understands and the bounds that bound nothing. */
function toJsonSchema(schema: z.ZodType): JsonSchema {
  return z.toJSONSchema(schema, {
    // What a person writes in the file, before defaults and transforms.
    io: "input",
    override: ({ jsonSchema }) => {
      if (typeof jsonSchema.format === "string" && ZOD_ONLY_FORMATS.has(jsonSchema.format)) delete jsonSchema.format;
      if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
      if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
    },
  }) as JsonSchema;
}

/** The JSON Schema of builds.config.yaml, for editors (its first line names it) and for checking examples. */
export function buildsConfigJsonSchema(): JsonSchema {
  const { $schema, ...rest } = toJsonSchema(configSchema);
  return {
    $schema,
    title: "builds.config.yaml",
    description:
      "The build service's configuration (BUILDS_CONFIG). Generated from lib/builds/config.ts by `npm run docs:config`; the rules that span keys (ttl.min_seconds <= ttl.max_seconds, ...) are checked at start.",
    ...rest,
  };
}

/** The text of builds.config.schema.json, as committed. */
export function buildsConfigJsonSchemaText(): string {
  return `${JSON.stringify(buildsConfigJsonSchema(), null, 2)}\n`;
}

interface Row {
  key: string;
  type: string;
  defaultValue: string;
  description: string;
}

/** Every key, depth first in the schema's order: `runtime.compose.install.service`, `repositories[].alias`. */
function rowsOf(schema: JsonSchema, prefix: string, rows: Row[]): Row[] {
  const object = objectOf(schema);
  if (!object?.properties) return rows;
  for (const [name, property] of Object.entries(object.properties)) {
    const key = `${prefix}${name}`;
    if (property.description === undefined) {
      throw new Error(`${key} has no description: add .describe() to it in its zod schema`);
    }
    const required = object.required?.includes(name) ?? false;
    rows.push({
      key,
      type: typeOf(property) + (required ? ", required" : ""),
      defaultValue: "default" in property ? codeOf(JSON.stringify(property.default)) : "",
      description: property.description,
    });
    const items = arrayItemsOf(property);
    if (items) rowsOf(items, `${key}[].`, rows);
    else rowsOf(property, `${key}.`, rows);
  }
  return rows;
}

/** An object schema, or the object of an optional or nullable one. */
function objectOf(schema: JsonSchema): JsonSchema | undefined {
  if (schema.properties) return schema;
  return schema.anyOf?.find((option) => option.properties);
}

function arrayItemsOf(schema: JsonSchema): JsonSchema | undefined {
  if (schema.type === "array" && schema.items?.properties) return schema.items;
  return undefined;
}

function typeOf(schema: JsonSchema): string {
  if (schema.not && Object.keys(schema.not).length === 0) return "not accepted";
  if (schema.anyOf) return schema.anyOf.map(typeOf).join(" or ");
  if (schema.enum) return schema.enum.map((value) => codeOf(JSON.stringify(value))).join(" or ");
  if (schema.const !== undefined) return codeOf(JSON.stringify(schema.const));
  if (schema.type === "array") return `list of ${schema.items ? typeOf(schema.items) : "values"}`;
  const type = Array.isArray(schema.type) ? schema.type.join(" or ") : (schema.type ?? "any");
  const bounds = boundsOf(schema);
  return bounds ? `${type} (${bounds})` : type;
}

function boundsOf(schema: JsonSchema): string {
  const bounds: string[] = [];
  if (schema.exclusiveMinimum !== undefined) bounds.push(`> ${schema.exclusiveMinimum}`);
  if (schema.minimum !== undefined) bounds.push(`>= ${schema.minimum}`);
  if (schema.maximum !== undefined) bounds.push(`<= ${schema.maximum}`);
  if (schema.format === "uri") bounds.push("URL");
  return bounds.join(", ");
}

function codeOf(text: string): string {
  return `\`${text}\``;
}

/** A table cell on one line, its pipes escaped and its placeholders (<build_id>) not taken for HTML tags. */
function cellOf(text: string): string {
  return text
    .replaceAll("|", "\\|")
    .replace(/<(?=[A-Za-z])/g, "\\<")
    .replaceAll("\n", " ");
}

/** A Markdown table with its columns padded, as the formatter (Biome) writes tables. */
function tableOf(rows: Row[], keyTitle: string): string {
  const cells = [
    [keyTitle, "type", "default", "what it does"],
    ...rows.map((row) => [codeOf(row.key), row.type, row.defaultValue, row.description].map(cellOf)),
  ];
  const widths = cells[0].map((_, column) => Math.max(3, ...cells.map((line) => line[column].length)));
  const lineOf = (line: string[]) => `| ${line.map((cell, column) => cell.padEnd(widths[column])).join(" | ")} |`;
  return [lineOf(cells[0]), lineOf(widths.map((width) => "-".repeat(width))), ...cells.slice(1).map(lineOf)].join("\n");
}

/** The text of docs/configuration.md, as committed. */
export function renderConfigurationReference(): string {
  const builds = rowsOf(buildsConfigJsonSchema(), "", []);
  const environment = rowsOf(toJsonSchema(envSchema), "", []);
  return `# Configuration reference

<!-- Generated by \`npm run docs:config\` from lib/builds/config.ts and lib/server/env.ts: edit the descriptions there. -->

Two places configure the application, both validated once at start: an invalid value stops the start with a
message naming it. The guides explain when to use what: [builds](builds.md), [the gateway](gateway.md),
[deployment](deployment.md).

## builds.config.yaml

The build service's file, at \`BUILDS_CONFIG\` (\`builds.config.yaml\` by default). Relative paths and repository
URLs are resolved against the file's own folder. Editors that speak the YAML language server complete and check
it against [builds.config.schema.json](builds.config.schema.json), named on the file's first line:

\`\`\`yaml
# yaml-language-server: $schema=./docs/builds.config.schema.json
\`\`\`

A key written \`a.b\` is \`b\` inside the object \`a\`; \`repositories[].alias\` is the \`alias\` of each item of the
list \`repositories\`.

${tableOf(builds, "key")}

## Environment variables

Read in one place, \`lib/server/env.ts\`. Every one has a default that works on a fresh machine.

${tableOf(environment, "variable")}

Besides these, the builds' processes inherit \`PATH\`, \`LANG\`, \`HOME\` and the Docker client's variables
(\`DOCKER_HOST\`, \`DOCKER_CONTEXT\`, \`DOCKER_CONFIG\`, \`DOCKER_CERT_PATH\`, \`DOCKER_TLS_VERIFY\`) and nothing else of the
server's environment; \`NODE_EXTRA_CA_CERTS\` gives Node.js a missing intermediate certificate of the bank's chain.
`;
}
