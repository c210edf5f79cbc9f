import { isMap, isSeq, parseDocument } from "yaml";

/**
 * Rendering a build's Compose file from the configured template. The template is ordinary Compose YAML;
 * `${NAME}` for the names below are the build's values, filled in by the service. Each value is either
 * derived from validated request values (module names, the build id) or from the configuration, and must
 * consist of characters that mean nothing to YAML or Compose, so no value can change the file's structure.
 * Any other `${...}` and `$$` are left for Compose.
 */
export const COMPOSE_VARIABLES = [
  "BUILD_ID",
  "PROJECT",
  "PORT",
  // The host's preview_address: where the web service publishes ${PORT} (`${PREVIEW_ADDRESS}:${PORT}:8069`).
  "PREVIEW_ADDRESS",
  "MODULES",
  "DATABASE",
  "WORKSPACE",
  "SOURCES",
  "ADDONS_PATH",
  "CONTAINER_ADDONS_PATH",
  // A random secret per build (lib/builds/runtime/drivers/compose.ts): Odoo's master password in the example.
  "BUILD_SECRET",
] as const;
export type ComposeVariables = Record<(typeof COMPOSE_VARIABLES)[number], string>;

const REFERENCE = /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;
const SAFE_VALUE = /^[A-Za-z0-9_.,:/@+=-]*$/;

/** The labels every container, network and volume of a build carries (besides Compose's own). */
export const BUILD_LABEL = "org.bcv-runbot.build";
export const INSTANCE_LABEL = "org.bcv-runbot.instance";

export class TemplateError extends Error {}

/** Problems with `${...}` references in a configured command: only the build's values may be used there. */
export function unknownVariables(text: string): string[] {
  const known = new Set<string>(COMPOSE_VARIABLES);
  return [...text.matchAll(REFERENCE)]
    .filter((match) => match[1] !== undefined && !known.has(match[1]))
    .map((match) => `\${${match[1]}} is not one of ${COMPOSE_VARIABLES.join(", ")}`);
}

/** Replaces `${NAME}` of the build's values; throws TemplateError when a value is unsafe. */
export function substituteVariables(text: string, variables: ComposeVariables): string {
  for (const [name, value] of Object.entries(variables)) {
    if (!SAFE_VALUE.test(value)) {
      throw new TemplateError(
        `The value of ${name} (${JSON.stringify(value)}) has characters a Compose file cannot take as they are.`,
      );
    }
  }
  return text.replace(REFERENCE, (match, name: string | undefined) =>
    name !== undefined && name in variables ? variables[name as keyof ComposeVariables] : match,
  );
}

/**
 * The build's Compose file: the template with the build's values, and the build's labels added to every
 * service, network and volume it defines (external ones excepted: they are not the build's).
 */
export function renderComposeFile(
  template: string,
  variables: ComposeVariables,
  labels: Record<string, string>,
): string {
  const document = parseDocument(substituteVariables(template, variables));
  if (document.errors.length > 0)
    throw new TemplateError(`The template is not valid YAML: ${document.errors[0].message}`);
  for (const section of ["services", "networks", "volumes"]) {
    const entries = document.get(section);
    if (!isMap(entries)) continue;
    for (const entry of entries.items) {
      if (entry.value === null || (entry.value as { value?: unknown }).value === null) {
        entry.value = document.createNode({});
      }
      const definition = entry.value;
      if (!isMap(definition) || definition.has("external")) continue;
      const existing = definition.get("labels");
      if (isSeq(existing)) {
        for (const [key, value] of Object.entries(labels)) existing.add(`${key}=${value}`);
      } else if (isMap(existing)) {
        for (const [key, value] of Object.entries(labels)) existing.set(key, value);
      } else if (existing === undefined || existing === null) {
        definition.set("labels", document.createNode(labels));
      }
    }
  }
  return document.toString();
}

/** A configured command's argv with the build's values: arguments, never a shell string, so any value is safe. */
export function substituteArguments(args: readonly string[], variables: ComposeVariables): string[] {
  return args.map((arg) =>
    arg.replace(REFERENCE, (match, name: string | undefined) =>
      name !== undefined && name in variables ? variables[name as keyof ComposeVariables] : match,
    ),
  );
}
