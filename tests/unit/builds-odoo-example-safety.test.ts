import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { loadBuildsConfig } from "@/lib/builds/config";
import { variablesOf } from "@/lib/builds/runtime/drivers/compose";
import { renderComposeFile } from "@/lib/builds/runtime/drivers/compose-template";
import { workspacePaths } from "@/lib/builds/runtime/workspace";

// The Odoo example's previews are reachable by whoever has the link: this renders the example's
// template for builds and checks what each preview's Odoo is started with.
const projectRoot = path.resolve(import.meta.dirname, "..", "..");
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "odoo-safety-"));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

const config = {
  ...loadBuildsConfig(path.join(projectRoot, "examples", "odoo16", "builds.config.yaml")),
  builds_root: scratch,
};
const template = fs.readFileSync(config.runtime.compose!.template, "utf8");

function render(buildId: string) {
  const paths = workspacePaths(config, buildId);
  const variables = variablesOf({
    buildId,
    port: 18042,
    modules: ["sale_management"],
    config,
    paths,
    repositories: [{ alias: "addons", checkout: path.join(paths.sources, "addons"), modulesPath: "." }],
  });
  const web = parse(renderComposeFile(template, variables, { "org.bcv-runbot.build": buildId })).services.web;
  // What Compose hands the container: `$$` is a literal `$`.
  const command = (web.command as string[]).map((arg) => arg.replaceAll("$$", "$"));
  const script = command[command.indexOf("-c") + 1];
  return { web, command, script, args: command.slice(command.indexOf("-c") + 3) };
}

describe("examples/odoo16: a preview is safe to share", () => {
  const first = render("0123456789abcdef");
  const second = render("fedcba9876543210");

  it("has a random master password per build, never Odoo's default `admin`", () => {
    const password = first.web.environment.MASTER_PASSWORD;
    expect(password).toMatch(/^[0-9a-f]{32}$/);
    expect(password).not.toBe("admin");
    expect(second.web.environment.MASTER_PASSWORD).toMatch(/^[0-9a-f]{32}$/);
    expect(second.web.environment.MASTER_PASSWORD).not.toBe(password);
    // The same build keeps its password: every stage, a restart and a wake render the template again.
    expect(render("0123456789abcdef").web.environment.MASTER_PASSWORD).toBe(password);
    // Odoo reads admin_passwd from its configuration file: the command writes it there, then starts Odoo with it.
    expect(first.script).toContain("admin_passwd = %s");
    expect(first.script).toContain('"$MASTER_PASSWORD" > /tmp/preview.conf');
    expect(first.script).toMatch(/exec \/entrypoint\.sh odoo --config=\/tmp\/preview\.conf "\$@"$/);
    expect(first.script).not.toMatch(/admin_passwd = admin/);
  });

  it("turns the database manager and the database list off", () => {
    expect(first.script).toContain("list_db = False");
    expect(first.args).toContain("--no-database-list");
  });

  it("keeps outgoing mail inside the preview", () => {
    expect(first.args).toContain("--smtp=127.0.0.1");
    expect(first.args).toContain("--smtp-port=2525");
  });

  it("serves the build's database only", () => {
    expect(first.args).toContain("--database=build_0123456789abcdef");
    expect(first.args).toContain("--db-filter=^build_0123456789abcdef$");
    expect(second.args).toContain("--db-filter=^build_fedcba9876543210$");
  });
});

describe("examples/odoo16: behind the gateway", () => {
  const { web, args } = render("0123456789abcdef");

  it("runs Odoo in proxy mode, its database filter unchanged", () => {
    expect(args).toContain("--proxy-mode");
    expect(args).toContain("--db-filter=^build_0123456789abcdef$");
  });

  it("publishes the preview on the host's preview address only, behind the gateway's names", () => {
    expect(config.gateway).toMatchObject({ domain: "preview.localhost", scheme: "http", port: 8080 });
    expect(web.ports).toEqual([`${config.preview_address}:18042:8069`]);
    expect(config.preview_address).toBe("127.0.0.1");
  });
});
