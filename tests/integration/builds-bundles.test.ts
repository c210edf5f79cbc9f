import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deliverGitHub, git, githubPush, makeRemote, pushCommit, type Remote, waitFor } from "../support/auto-builds";
import {
  type BuildJson,
  type BuildsApp,
  fixtureConfig,
  makeBuildsFixture,
  startBuildsApp,
  tearDownBuilds,
} from "../support/builds";
import { type ForgeServer, startForgeServer } from "../support/forge-server";
import { githubPullRequest, pushPullRequestHead } from "../support/pull-requests";

// A bundle of three repositories, each a bare repository with a working clone to push from: `odoo` has only main,
// `enterprise` has 16.0 and 16.0-fix, `addons` is where the branch 16.0-fix-sale is pushed. Every one reports
// commit statuses to a stand-in GitHub under a project of its own. The install prints an Odoo ERROR record for the
// odoo_error module (auto_build installs it): log_checks keeps its default, fail_on_errors false. Each branch keeps
// two live previews (keep_per_branch: 2).
const INSTALL_SCRIPT = `
const modules = process.env.MODULES.split(",");
const stamp = () => new Date().toISOString().replace("T", " ").replace("Z", "").replace(".", ",");
console.log("addons " + process.env.ADDONS_PATH);
if (modules.includes("odoo_error"))
  console.log(stamp() + " " + process.pid + " ERROR db odoo.modules.loading: odoo_error could not be loaded");
`;
const SECRET = `s3cret-${crypto.randomUUID()}`;
const TOKEN = `ghp_${crypto.randomBytes(12).toString("hex")}`;
let builds: BuildsApp;
let forge: ForgeServer;
let odoo: Remote;
let enterprise: Remote;
let addons: Remote;

beforeAll(async () => {
  forge = await startForgeServer();
  const repository = (alias: string, priority: number, autoBuild: boolean) => `
  - alias: ${alias}
    url: ./${alias}.git
    priority: ${priority}
    modules_path: addons
    module_manifest: manifest.json
    webhook_secret_env: BUNDLE_TEST_SECRET
    forge: { kind: github, api_url: "${forge.url}", project: acme/${alias}, token_env: BUNDLE_TEST_TOKEN }${
      autoBuild ? `\n    auto_build: { branches: ["16.0", "16.0-*"], modules: [base_mod, odoo_error] }` : ""
    }`;
  const fixture = makeBuildsFixture(
    (partial) =>
      `${fixtureConfig(partial, {
        maxConcurrent: 3,
        extraRepositories: [
          repository("odoo", 1, false),
          repository("enterprise", 2, true),
          repository("addons", 3, true),
        ].join(""),
      }).replace("install: node stages/install.mjs", "install: node stages/odoo-install.mjs")}
bundles:
  - { name: sale, repositories: [odoo, enterprise, addons] }
keep_per_branch: 2
`,
    ["odoo_error"],
  );
  fs.writeFileSync(path.join(fixture.repository, "stages", "odoo-install.mjs"), INSTALL_SCRIPT);
  git(fixture.repository, "add", ".");
  git(fixture.repository, "commit", "--quiet", "-m", "an install that logs like Odoo");
  odoo = makeRemote(fixture, "odoo");
  enterprise = makeRemote(fixture, "enterprise");
  addons = makeRemote(fixture, "addons");
  pushCommit(enterprise, "16.0", "enterprise 16.0");
  pushCommit(enterprise, "16.0-fix", "enterprise 16.0-fix");
  builds = await startBuildsApp(fixture, {
    BUNDLE_TEST_SECRET: SECRET,
    BUNDLE_TEST_TOKEN: TOKEN,
    PUBLIC_URL: "https://runbot.example.test",
  });
});
afterAll(async () => {
  await tearDownBuilds(builds);
  await forge?.close();
});

type Repository = { repository: string; ref: string; commit_sha: string; ref_reason: string | null };
const headOf = (remote: Remote, branch: string) => git(remote.bare, "rev-parse", `refs/heads/${branch}`);

async function deliverPush(alias: string, remote: Remote, branch: string, subject: string): Promise<BuildJson> {
  const sha = pushCommit(remote, branch, subject);
  const response = await deliverGitHub(builds, alias, githubPush(branch, sha), SECRET);
  const body = await response.json();
  expect(response.status, JSON.stringify(body)).toBe(202);
  expect(body.result).toBe("started");
  return body.build as BuildJson;
}

let first: BuildJson;

describe("bundles", () => {
  it("a push of 16.0-fix-sale on addons builds every repository of the bundle, saying which ref each took and why", async () => {
    first = await deliverPush("addons", addons, "16.0-fix-sale", "sale: fix the totals");
    expect(first).toMatchObject({ bundle: "sale", branch: "16.0-fix-sale", trigger: "webhook" });
    expect(first.modules).toEqual(["base_mod", "odoo_error"]);
    expect((first.repositories as Repository[]).map((r) => [r.repository, r.ref, r.commit_sha, r.ref_reason])).toEqual([
      ["odoo", "main", headOf(odoo, "main"), "default"],
      // The longest branch that 16.0-fix-sale starts with, followed by a dash.
      ["enterprise", "16.0-fix", headOf(enterprise, "16.0-fix"), "base"],
      ["addons", "16.0-fix-sale", headOf(addons, "16.0-fix-sale"), "branch"],
    ]);
    const running = await builds.waitForStatus(first.build_id, ["running", "failed"]);
    expect(running.status).toBe("running");
    // Every repository was checked out in the build, in ADDONS_PATH order.
    const log = await (await builds.get(`/builds/${first.build_id}/logs/raw?stage=install`)).text();
    expect(log).toMatch(/addons .*sources\/odoo\/addons:.*sources\/enterprise\/addons:.*sources\/addons\/addons/);
    // fail_on_errors is off: the ERROR record is counted, and the preview runs.
    expect(running.log_checks).toEqual({ errors: 1, warnings: 0 });
  });

  it("sends the build's statuses to every repository whose commit it holds, with the error count", async () => {
    for (const [remote, alias, branch] of [
      [odoo, "odoo", "main"],
      [enterprise, "enterprise", "16.0-fix"],
      [addons, "addons", "16.0-fix-sale"],
    ] as const) {
      const sha = headOf(remote, branch);
      const success = await waitFor(`the success status of ${alias}`, async () =>
        forge.requestsTo(`/repos/acme/${alias}/statuses/${sha}`).find((request) => request.body.state === "success"),
      );
      expect(success.body.description).toBe("Preview running (1 error)");
      expect(success.body.target_url).toBe(`https://runbot.example.test/builds/${first.build_id}`);
    }
  });

  it("a push of the same branch on enterprise builds the bundle again with enterprise at it; two previews stay", async () => {
    const second = await deliverPush("enterprise", enterprise, "16.0-fix-sale", "enterprise: the sale fix");
    expect(second).toMatchObject({ bundle: "sale", branch: "16.0-fix-sale" });
    expect((second.repositories as Repository[]).map((r) => [r.repository, r.ref, r.ref_reason])).toEqual([
      ["odoo", "main", "default"],
      ["enterprise", "16.0-fix-sale", "branch"],
      ["addons", "16.0-fix-sale", "branch"],
    ]);
    expect((await builds.waitForStatus(second.build_id, ["running", "failed"])).status).toBe("running");
    // keep_per_branch 2: the first stays (given a moment in which a retire would have begun).
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect((await (await builds.get(`/builds/${first.build_id}`)).json()).status).toBe("running");

    const third = await deliverPush("addons", addons, "16.0-fix-sale", "sale: and the taxes");
    expect((await builds.waitForStatus(third.build_id, ["running", "failed"])).status).toBe("running");
    // The oldest of the bundle's branch goes; the two newest stay.
    expect((await builds.waitForStatus(first.build_id, ["destroyed"], 20_000)).status).toBe("destroyed");
    expect((await (await builds.get(`/builds/${second.build_id}`)).json()).status).toBe("running");
    expect((await (await builds.get(`/builds/${third.build_id}`)).json()).status).toBe("running");
  });

  it("a pull request on addons builds the bundle with the others at the branch it comes from, or its base", async () => {
    const sha = pushPullRequestHead(addons, "refs/pull/7/head", "stock: fix the moves");
    const payload = githubPullRequest("opened", 7, sha);
    payload.pull_request.head.ref = "16.0-fix-stock";
    const response = await deliverGitHub(builds, "addons", payload, SECRET, "pull_request");
    const body = await response.json();
    expect(response.status, JSON.stringify(body)).toBe(202);
    const build = body.build as BuildJson;
    expect(build).toMatchObject({ bundle: "sale", branch: "refs/pull/7/head" });
    expect((build.repositories as Repository[]).map((r) => [r.repository, r.ref, r.commit_sha, r.ref_reason])).toEqual([
      ["odoo", "main", headOf(odoo, "main"), "default"],
      ["enterprise", "16.0-fix", headOf(enterprise, "16.0-fix"), "base"],
      ["addons", "refs/pull/7/head", sha, "branch"],
    ]);
    expect((await builds.waitForStatus(build.build_id, ["running", "failed"])).status).toBe("running");
  });

  it("a manual build still picks each repository's ref, and is no bundle's", async () => {
    const response = await builds.post({
      repositories: [
        { repository: "odoo", ref: "main" },
        { repository: "addons", ref: "16.0-fix-sale" },
      ],
      modules: ["base_mod"],
    });
    expect(response.status).toBe(202);
    const manual = (await response.json()) as BuildJson;
    expect(manual).toMatchObject({ bundle: null, branch: null, trigger: "manual" });
    expect((manual.repositories as Repository[]).map((r) => [r.repository, r.ref, r.ref_reason])).toEqual([
      ["odoo", "main", "requested"],
      ["addons", "16.0-fix-sale", "requested"],
    ]);
  });
});
