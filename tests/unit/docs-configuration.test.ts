import fs from "node:fs";
import path from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import {
  BUILDS_CONFIG_SCHEMA_FILE,
  buildsConfigJsonSchema,
  buildsConfigJsonSchemaText,
  CONFIGURATION_REFERENCE_FILE,
  renderConfigurationReference,
} from "@/lib/reference/configuration";

const projectRoot = path.resolve(import.meta.dirname, "..", "..");
/** The row of a key in the reference's tables, whatever the padding of its columns. */
const rowOf = (key: string) => new RegExp(`^\\| \`${key.replace(/[.[\]]/g, "\\$&")}\` +\\|`, "m");
const read = (file: string) => fs.readFileSync(path.join(projectRoot, file), "utf8");

/** The shipped configuration and every builds configuration under examples/ (not their Compose templates). */
function shippedConfigurations(): string[] {
  const examples = fs
    .readdirSync(path.join(projectRoot, "examples"), { recursive: true, encoding: "utf8" })
    .filter((file) => /builds[^/]*\.ya?ml$/.test(path.basename(file)))
    .map((file) => path.join("examples", file));
  return ["builds.config.yaml", ...examples.sort()];
}

describe("the configuration reference (npm run docs:config)", () => {
  it(`${CONFIGURATION_REFERENCE_FILE} is what the zod schemas make today`, () => {
    expect(read(CONFIGURATION_REFERENCE_FILE), "run `npm run docs:config` and commit the result").toBe(
      renderConfigurationReference(),
    );
  });

  it(`${BUILDS_CONFIG_SCHEMA_FILE} is what the zod schema makes today`, () => {
    expect(read(BUILDS_CONFIG_SCHEMA_FILE), "run `npm run docs:config` and commit the result").toBe(
      buildsConfigJsonSchemaText(),
    );
  });

  it("names every key of builds.config.yaml and every environment variable", () => {
    const reference = read(CONFIGURATION_REFERENCE_FILE);
    for (const key of ["runtime.compose.install.command", "repositories[].forge.token_env", "limits.live_per_user"]) {
      expect(reference).toMatch(rowOf(key));
    }
    for (const variable of ["DATABASE_URL", "BUILDS_CONFIG", "METRICS_TOKEN"]) {
      expect(reference).toMatch(rowOf(variable));
    }
    expect(reference).toMatch(/\| `ttl\.default_seconds` +\| integer \(> 0\) +\| `14400` +\| A build's time to live/);
  });
});

describe(`the JSON Schema of builds.config.yaml (${BUILDS_CONFIG_SCHEMA_FILE})`, () => {
  // The one format the schema uses, checked as the application checks it (z.url()).
  const ajv = new Ajv2020({ allErrors: true, strict: true }).addFormat("uri", (value: string) => URL.canParse(value));
  const validate = ajv.compile(buildsConfigJsonSchema());
  const configurations = shippedConfigurations();

  it("finds the shipped configuration and the examples", () => {
    expect(configurations).toEqual(["builds.config.yaml", "examples/odoo16/builds.config.yaml"]);
  });

  it.each(configurations)("%s names the schema on its first line and is valid against it", (file) => {
    const text = read(file);
    const schemaPath = path.relative(
      path.dirname(path.join(projectRoot, file)),
      path.join(projectRoot, BUILDS_CONFIG_SCHEMA_FILE),
    );
    expect(text.split("\n")[0]).toBe(
      `# yaml-language-server: $schema=${schemaPath.startsWith(".") ? "" : "./"}${schemaPath}`,
    );
    const valid = validate(parseYaml(text));
    expect(validate.errors ?? [], file).toEqual([]);
    expect(valid).toBe(true);
  });

  it("refuses what the application refuses: an unknown key, a wrong type, a value out of its range", () => {
    const shipped = parseYaml(read("builds.config.yaml"));
    for (const wrong of [
      { ...shipped, max_concurent_builds: 2 },
      { ...shipped, ports: { start: "18000" } },
      { ...shipped, runtime: { ...shipped.runtime, driver: "kubernetes" } },
      { ...shipped, repositories: [{ alias: "demo" }] },
      { ...shipped, ttl: { default_seconds: -1 } },
    ]) {
      expect(validate(wrong), JSON.stringify(wrong)).toBe(false);
    }
  });
});
