import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { loadBuildsConfig } from "@/lib/builds/config";
import { variablesOf } from "@/lib/builds/runtime/drivers/compose";
import { renderComposeFile, substituteArguments } from "@/lib/builds/runtime/drivers/compose-template";
import { workspacePaths } from "@/lib/builds/runtime/workspace";

// The shipped Odoo 16 example is checked the way a build would use it, without pulling any image: its
// configuration loads, its template renders for a build, and Compose's own `config` accepts the result.
const projectRoot = path.resolve(import.meta.dirname, "..", "..");
const cli = [["docker-compose"], ["docker", "compose"]].find(
  ([file, ...prefix]) => spawnSync(file, [...prefix, "version"]).status === 0,
);
if (!cli && process.env.CI === "true")
  throw new Error("Neither docker-compose nor docker compose is installed: CI must check the Odoo example.");

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "odoo-example-"));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

describe.skipIf(!cli)("examples/odoo16", () => {
  it("renders for a build and passes `compose config`; install and test run Odoo with the build's modules", () => {
    const config = loadBuildsConfig(path.join(projectRoot, "examples", "odoo16", "builds.config.yaml"));
    expect(config.runtime.driver).toBe("compose");
    const compose = config.runtime.compose!;
    const buildId = "0123456789abcdef";
    const paths = workspacePaths({ ...config, builds_root: scratch }, buildId);
    const variables = variablesOf({
      buildId,
      port: 18042,
      modules: ["sale_management", "stock"],
      config,
      paths,
      repositories: [{ alias: "addons", checkout: path.join(paths.sources, "addons"), modulesPath: "." }],
    });
    const file = path.join(scratch, "compose.yaml");
    fs.writeFileSync(
      file,
      renderComposeFile(fs.readFileSync(compose.template, "utf8"), variables, { "org.bcv-runbot.build": buildId }),
    );

    const [command, ...prefix] = cli!;
    const output = execFileSync(command, [...prefix, "-p", variables.PROJECT, "-f", file, "config"], {
      encoding: "utf8",
      cwd: scratch,
    });
    const resolved = parse(output);
    expect(resolved.services.web.image).toBe("odoo:16");
    expect(resolved.services.db.image).toBe("postgres:15");
    // `config` prints a literal $ escaped again, as $$.
    expect(resolved.services.web.command.map((arg: string) => arg.replace("$$", "$"))).toContain(
      "--db-filter=^build_0123456789abcdef$",
    );
    expect(resolved.services.web.command).toContain(
      "--addons-path=/usr/lib/python3/dist-packages/odoo/addons,/mnt/sources/addons",
    );
    expect(JSON.stringify(resolved.services.web.ports)).toContain("18042");
    expect(resolved.services.web.labels).toMatchObject({ "org.bcv-runbot.build": buildId });
    expect(resolved.services.db.healthcheck.test.join(" ")).toContain("pg_isready");

    expect(substituteArguments(compose.install!.command, variables)).toEqual(
      expect.arrayContaining([
        "--database=build_0123456789abcdef",
        "--init=sale_management,stock",
        "--stop-after-init",
      ]),
    );
    expect(substituteArguments(compose.test!.command, variables)).toEqual(
      expect.arrayContaining(["--test-enable", "--update=sale_management,stock", "--stop-after-init"]),
    );
    expect(config.runtime.healthcheck.path).toBe("/web/login");
  });
});
