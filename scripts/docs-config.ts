/**
 * `npm run docs:config`: writes the configuration reference (docs/configuration.md) and the JSON Schema of
 * builds.config.yaml (docs/builds.config.schema.json) from the zod schemas (lib/reference/configuration.ts).
 * Run it after changing a key or a variable; tests/unit/docs-configuration.test.ts fails until it is run.
 */
import fs from "node:fs";
import path from "node:path";
import {
  BUILDS_CONFIG_SCHEMA_FILE,
  buildsConfigJsonSchemaText,
  CONFIGURATION_REFERENCE_FILE,
  renderConfigurationReference,
} from "../lib/reference/configuration";

const projectRoot = path.resolve(import.meta.dirname, "..");
for (const [file, text] of [
  [CONFIGURATION_REFERENCE_FILE, renderConfigurationReference()],
  [BUILDS_CONFIG_SCHEMA_FILE, buildsConfigJsonSchemaText()],
] as const) {
  const target = path.join(projectRoot, file);
  const changed = !fs.existsSync(target) || fs.readFileSync(target, "utf8") !== text;
  if (changed) fs.writeFileSync(target, text);
  console.log(`${file}: ${changed ? "written" : "up to date"}`);
}
