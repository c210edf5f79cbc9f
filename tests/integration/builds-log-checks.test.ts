import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { git, waitFor } from "../support/auto-builds";
import {
  type BuildJson,
  type BuildsApp,
  fixtureConfig,
  makeBuildsFixture,
  startBuildsApp,
  tearDownBuilds,
} from "../support/builds";
import { type ForgeServer, startForgeServer } from "../support/forge-server";

// Log checks with fail_on_errors: the install stage prints Odoo-like log lines (and a Python traceback whose path,
// line number and pid differ from build to build) as the requested modules ask. `demo` is public, `secret`
// (the same repository) keeps its previews to signed-in users, `reported` sends commit statuses to a stand-in host.
const INSTALL_SCRIPT = `
const modules = process.env.MODULES.split(",");
const stamp = () => new Date().toISOString().replace("T", " ").replace("Z", "").replace(".", ",");
const pid = process.pid;
console.log(stamp() + " " + pid + " INFO db odoo.modules.loading: loading " + modules.length + " modules...");
if (modules.includes("odoo_warn")) console.log(stamp() + " " + pid + " WARNING db odoo.models: The field sale.order.x has no string");
if (modules.includes("odoo_error")) {
  console.log(stamp() + " " + pid + " ERROR db odoo.modules.loading: Failed to load module odoo_error");
  console.log("Traceback (most recent call last):");
  console.log('  File "' + process.cwd() + '/addons/odoo_error/models.py", line ' + (100 + (pid % 50)) + ", in <module>");
  console.log("    raise ValueError(record)");
  console.log("ValueError: record " + pid);
}
console.log(stamp() + " " + pid + " INFO db odoo.service.server: Initiating shutdown");
`;
const TOKEN = `ghp_${crypto.randomBytes(12).toString("hex")}`;
let builds: BuildsApp;
let forge: ForgeServer;

beforeAll(async () => {
  forge = await startForgeServer();
  const fixture = makeBuildsFixture(
    (partial) =>
      `${fixtureConfig(partial, {
        maxConcurrent: 3,
        extraRepositories: `
  - alias: secret
    url: ./repo
    modules_path: addons
    module_manifest: manifest.json
    preview_access: users
  - alias: reported
    url: ./repo
    modules_path: addons
    module_manifest: manifest.json
    forge: { kind: github, api_url: "${forge.url}", project: acme/addons, token_env: LOG_CHECKS_TEST_TOKEN }
`,
      }).replace("install: node stages/install.mjs", "install: node stages/odoo-install.mjs")}
log_checks: { fail_on_errors: true }
`,
    ["odoo_warn", "odoo_error"],
  );
  fs.writeFileSync(path.join(fixture.repository, "stages", "odoo-install.mjs"), INSTALL_SCRIPT);
  git(fixture.repository, "add", ".");
  git(fixture.repository, "commit", "--quiet", "-m", "an install that logs like Odoo");
  builds = await startBuildsApp(fixture, { LOG_CHECKS_TEST_TOKEN: TOKEN });
});
afterAll(async () => {
  await tearDownBuilds(builds);
  await forge?.close();
});

async function start(repository: string, modules: string[]): Promise<BuildJson> {
  const response = await builds.post({ repositories: [{ repository }], modules });
  expect(response.status, await response.clone().text()).toBe(202);
  return (await response.json()) as BuildJson;
}

async function errorsAs(headers: Record<string, string> = {}) {
  const response = await builds.app.fetch("/builds/errors", { headers: { Accept: "application/json", ...headers } });
  expect(response.status).toBe(200);
  return (await response.json()) as {
    errors: {
      fingerprint: string;
      cleaned: string;
      sample: string;
      builds: number;
      branches: string[];
      on_base: boolean;
      build_ids: string[];
      first_seen: string;
      last_seen: string;
    }[];
  };
}

const failedIds: string[] = [];

describe("log checks", () => {
  it("counts a warning in the install log; the build runs and its status on the host says so", async () => {
    const build = await start("reported", ["base_mod", "odoo_warn"]);
    const running = await builds.waitForStatus(build.build_id, ["running", "failed"]);
    expect(running.status).toBe("running");
    expect(running.log_checks).toEqual({ errors: 0, warnings: 1 });
    const listed = (await (await builds.get("/builds?limit=5")).json()) as { builds: BuildJson[] };
    expect(listed.builds.find((b) => b.build_id === build.build_id)?.log_checks).toEqual({ errors: 0, warnings: 1 });
    const success = await waitFor("the success status", async () =>
      forge.requests.find((request) => request.body.state === "success"),
    );
    expect(success.body.description).toBe("Preview running (1 warning)");
  });

  it("with fail_on_errors, an ERROR record and its traceback fail the build at the end of install", async () => {
    const build = await start("demo", ["base_mod", "odoo_error", "odoo_warn"]);
    const failed = await builds.waitForStatus(build.build_id, ["running", "failed"]);
    expect(failed).toMatchObject({
      status: "failed",
      failure_stage: "install",
      log_checks: { errors: 1, warnings: 1 },
    });
    expect(failed.failure_message).toMatch(
      /^The install log has 1 error \(log_checks\.fail_on_errors\): \d{4}-\d\d-\d\d [\d:,]+ \d+ ERROR db odoo\.modules\.loading: Failed to load module odoo_error$/,
    );
    const install = failed.stages.find((stage) => stage.name === "install");
    expect(install).toMatchObject({ status: "failed", exit_code: 0 });
    expect(failed.stages.find((stage) => stage.name === "test")?.status).toBe("skipped");
    failedIds.push(build.build_id);
  });

  it("GET /builds/errors groups the same error of two builds, cleaned of paths, pids and line numbers", async () => {
    const second = await start("demo", ["odoo_error"]);
    expect((await builds.waitForStatus(second.build_id, ["running", "failed"])).status).toBe("failed");
    failedIds.push(second.build_id);
    const { errors } = await errorsAs();
    expect(errors).toHaveLength(1);
    const [error] = errors;
    expect(error.builds).toBe(2);
    expect(error.build_ids.sort()).toEqual([...failedIds].sort());
    expect(error.branches).toEqual(["main"]);
    // main is the repositories' default_ref: the base branch has the error too.
    expect(error.on_base).toBe(true);
    expect(error.fingerprint).toMatch(/^[0-9a-f]{32}$/);
    expect(error.cleaned).toBe(
      [
        "<date> <n> ERROR db odoo.modules.loading: Failed to load module odoo_error",
        "Traceback (most recent call last):",
        '  File "<build>/sources/demo/addons/odoo_error/models.py", line <n>, in <module>',
        "    raise ValueError(record)",
        "ValueError: record <n>",
      ].join("\n"),
    );
    expect(error.sample).toContain(`${second.build_id}/sources/demo/addons/odoo_error/models.py`);
    expect(error.sample).toMatch(/^ValueError: record \d+$/m);
    expect(new Date(error.first_seen).getTime()).toBeLessThan(new Date(error.last_seen).getTime());
  });

  it("a private build's errors are listed for signed-in users only", async () => {
    const hidden = await start("secret", ["odoo_error"]);
    expect((await builds.waitForStatus(hidden.build_id, ["running", "failed"])).status).toBe("failed");
    const anonymous = await errorsAs();
    expect(anonymous.errors).toHaveLength(1);
    expect(JSON.stringify(anonymous)).not.toContain(hidden.build_id);
    // Its checkout is another folder of the sources (secret, not demo): another error, listed first as the newest.
    const signedIn = await errorsAs(builds.authorization);
    expect(signedIn.errors.map((error) => error.builds)).toEqual([1, 2]);
    expect(signedIn.errors[0].build_ids).toEqual([hidden.build_id]);
    expect(signedIn.errors[0].cleaned).toContain('File "<build>/sources/secret/addons/odoo_error/models.py"');
  });

  it("sends a browser to the errors page, which serves; a bad limit or an unknown parameter is a 400 problem", async () => {
    const redirect = await builds.app.fetch("/builds/errors", { headers: { Accept: "text/html" }, redirect: "manual" });
    expect(redirect.status).toBe(303);
    expect(redirect.headers.get("location")).toBe("/build-errors");
    const page = await builds.app.fetch("/build-errors", { headers: { Accept: "text/html" } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Errors in the build logs");
    for (const query of ["limit=0", "limit=201", "branch=main"]) {
      const bad = await builds.app.fetch(`/builds/errors?${query}`, { headers: { Accept: "application/json" } });
      expect(bad.status, query).toBe(400);
      expect(bad.headers.get("content-type")).toBe("application/problem+json");
    }
  });
});
