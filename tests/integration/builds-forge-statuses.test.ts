import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "../support/auto-builds";
import {
  type BuildJson,
  type BuildsApp,
  fixtureConfig,
  makeBuildsFixture,
  startBuildsApp,
  tearDownBuilds,
} from "../support/builds";
import { type ForgeRequest, type ForgeServer, startForgeServer } from "../support/forge-server";

// Commit statuses on the git host. Three repositories of the same fixture, each on another host's
// API: a loopback stand-in for GitHub, GitLab and Gitea that records what it is sent. A fourth host never answers.
const TOKENS = {
  FORGE_TEST_GITHUB_TOKEN: `ghp_${crypto.randomBytes(12).toString("hex")}`,
  FORGE_TEST_GITLAB_TOKEN: `glpat-${crypto.randomBytes(12).toString("hex")}`,
  FORGE_TEST_GITEA_TOKEN: `gitea${crypto.randomBytes(12).toString("hex")}`,
  FORGE_TEST_SILENT_TOKEN: `silent${crypto.randomBytes(12).toString("hex")}`,
};
const PUBLIC_URL = "https://runbot.example.test";
let builds: BuildsApp;
let github: ForgeServer;
let gitlab: ForgeServer;
let gitea: ForgeServer;
let silent: ForgeServer;
/** Every answer the API gave in this file, to look for the tokens in. */
const answers: string[] = [];

beforeAll(async () => {
  [github, gitlab, gitea, silent] = await Promise.all([
    startForgeServer(),
    startForgeServer("/api/v4"),
    startForgeServer("/api/v1"),
    startForgeServer(),
  ]);
  silent.hang();
  const repository = (alias: string, forge: string) => `
  - alias: ${alias}
    url: ./repo
    modules_path: addons
    module_manifest: manifest.json
    forge: ${forge}`;
  const fixture = makeBuildsFixture((partial) =>
    fixtureConfig(partial, {
      maxConcurrent: 4,
      extraRepositories: [
        repository(
          "gh",
          `{ kind: github, api_url: "${github.url}", project: acme/addons, token_env: FORGE_TEST_GITHUB_TOKEN, retries: 2 }`,
        ),
        repository(
          "gl",
          `{ kind: gitlab, api_url: "${gitlab.url}", project: acme/addons, token_env: FORGE_TEST_GITLAB_TOKEN, context: runbot }`,
        ),
        repository(
          "gt",
          `{ kind: gitea, api_url: "${gitea.url}", project: acme/addons, token_env: FORGE_TEST_GITEA_TOKEN }`,
        ),
        repository(
          "mute",
          `{ kind: github, api_url: "${silent.url}", project: acme/mute, token_env: FORGE_TEST_SILENT_TOKEN, timeout_seconds: 0.5, retries: 1 }`,
        ),
      ].join(""),
    }),
  );
  builds = await startBuildsApp(fixture, { ...TOKENS, PUBLIC_URL });
});
afterAll(async () => {
  await tearDownBuilds(builds);
  await Promise.all([github, gitlab, gitea, silent].map((server) => server?.close()));
});

async function start(repositories: string[], modules: string[]): Promise<BuildJson> {
  const response = await builds.post({ repositories: repositories.map((repository) => ({ repository })), modules });
  const text = await response.text();
  answers.push(text);
  expect(response.status, text).toBe(202);
  return JSON.parse(text) as BuildJson;
}

async function view(buildId: string): Promise<BuildJson & { forge_reports: Record<string, unknown>[] }> {
  const text = await (await builds.get(`/builds/${buildId}`)).text();
  answers.push(text);
  return JSON.parse(text);
}

const shaOf = (build: BuildJson) => (build.repositories as { commit_sha: string }[])[0].commit_sha;
const statesOf = (requests: ForgeRequest[]) =>
  requests.map((request) => `${request.body.state} ${request.body.description}`);

/** Waits until the host got `count` statuses for the commit, and the build's page shows `reports` reports. */
async function statusesAfter(server: ForgeServer, path: string, buildId: string, count: number, reports = count) {
  await waitFor(
    `${count} statuses at ${path}`,
    async () => server.requestsTo(path).filter((r) => r.body.target_url?.toString().endsWith(buildId)).length >= count,
  );
  await waitFor(
    `${reports} reports on build ${buildId}`,
    async () => (await view(buildId)).forge_reports.length >= reports,
  );
  return server.requestsTo(path).filter((r) => r.body.target_url?.toString().endsWith(buildId));
}

describe("commit statuses on the git host", () => {
  it("a passing build on GitHub: pending while queued and building, then success linked to the build's page", async () => {
    const build = await start(["gh"], ["base_mod"]);
    expect((await builds.waitForStatus(build.build_id, ["running", "failed"])).status).toBe("running");
    const path = `/repos/acme/addons/statuses/${shaOf(build)}`;
    const sent = await statusesAfter(github, path, build.build_id, 3);
    expect(statesOf(sent)).toEqual(["pending Queued", "pending Building", "success Preview running"]);
    for (const request of sent) {
      expect(request.method).toBe("POST");
      expect(request.headers.authorization).toBe(`Bearer ${TOKENS.FORGE_TEST_GITHUB_TOKEN}`);
      expect(request.headers["x-github-api-version"]).toBe("2022-11-28");
      expect(request.body).toMatchObject({
        context: "bcv-runbot/preview",
        target_url: `${PUBLIC_URL}/builds/${build.build_id}`,
      });
    }
    const reports = (await view(build.build_id)).forge_reports;
    expect(reports.map((r) => [r.repository, r.kind, r.state, r.outcome, r.attempts])).toEqual([
      ["gh", "status", "pending", "sent", 1],
      ["gh", "status", "pending", "sent", 1],
      ["gh", "status", "success", "sent", 1],
    ]);
  });

  it("a failing build on GitLab: pending, running, then failed naming the stage, under the configured name", async () => {
    const build = await start(["gl"], ["broken"]);
    const failed = await builds.waitForStatus(build.build_id, ["failed", "running"]);
    expect(failed.failure_stage).toBe("test");
    // GitLab takes the project's path URL-encoded in place of its id.
    const sent = await statusesAfter(gitlab, `/projects/acme%2Faddons/statuses/${shaOf(build)}`, build.build_id, 3);
    expect(statesOf(sent)).toEqual(["pending Queued", "running Building", "failed Failed at stage test"]);
    for (const request of sent) {
      expect(request.headers["private-token"]).toBe(TOKENS.FORGE_TEST_GITLAB_TOKEN);
      expect(request.body.name).toBe("runbot");
    }
  });

  it("a canceled build on Gitea: pending, then error", async () => {
    const build = await start(["gt"], ["slow_install"]);
    await builds.waitForStatus(build.build_id, ["installing"]);
    const cancel = await builds.app.fetch(`/builds/${build.build_id}/cancel`, {
      method: "POST",
      headers: builds.authorization,
    });
    expect(cancel.status).toBe(200);
    const sent = await statusesAfter(gitea, `/repos/acme/addons/statuses/${shaOf(build)}`, build.build_id, 3);
    expect(statesOf(sent)).toEqual(["pending Queued", "pending Building", "error Canceled"]);
    expect(sent[0].headers.authorization).toBe(`token ${TOKENS.FORGE_TEST_GITEA_TOKEN}`);
  });

  it("a build of several repositories reports on each repository's commit, each to its own host", async () => {
    const build = await start(["gh", "gt"], ["base_mod"]);
    expect((await builds.waitForStatus(build.build_id, ["running", "failed"])).status).toBe("running");
    const sha = shaOf(build);
    await waitFor("both hosts told", async () => (await view(build.build_id)).forge_reports.length >= 6);
    const mine = (server: ForgeServer) =>
      server.requestsTo(`/statuses/${sha}`).filter((r) => String(r.body.target_url).endsWith(build.build_id));
    expect(statesOf(mine(github))).toEqual(["pending Queued", "pending Building", "success Preview running"]);
    expect(statesOf(mine(gitea))).toEqual(["pending Queued", "pending Building", "success Preview running"]);
  });

  it("a host answering 500 is asked again, and the build's page says it took two attempts", async () => {
    github.answerNext({ status: 500, body: { message: "Server Error" } });
    const build = await start(["gh"], ["base_mod"]);
    expect((await builds.waitForStatus(build.build_id, ["running", "failed"])).status).toBe("running");
    // The first status was answered 500, then 201: the host has it once, in its place.
    const sent = await statusesAfter(github, `/statuses/${shaOf(build)}`, build.build_id, 4, 3);
    expect(statesOf(sent)).toEqual(["pending Queued", "pending Queued", "pending Building", "success Preview running"]);
    const reports = (await view(build.build_id)).forge_reports;
    expect(reports[0]).toMatchObject({
      state: "pending",
      description: "Queued",
      outcome: "sent",
      attempts: 2,
      error: null,
    });
  });

  it("a host that refuses (4xx) is not asked again; what it said is shown without the token", async () => {
    github.answerNext({ status: 422, body: { message: `Validation Failed for ${TOKENS.FORGE_TEST_GITHUB_TOKEN}` } });
    const build = await start(["gh"], ["base_mod"]);
    expect((await builds.waitForStatus(build.build_id, ["running", "failed"])).status).toBe("running");
    await waitFor("three reports", async () => (await view(build.build_id)).forge_reports.length >= 3);
    const [first] = (await view(build.build_id)).forge_reports;
    expect(first).toMatchObject({ outcome: "failed", attempts: 1 });
    expect(first.error).toMatch(/HTTP 422: Validation Failed for \[token\]/);
  });

  it("a host that never answers neither blocks nor fails the build: it gives up after its retries and says so", async () => {
    const build = await start(["mute"], ["base_mod"]);
    expect((await builds.waitForStatus(build.build_id, ["running", "failed"])).status).toBe("running");
    const reports = await waitFor("the three reports given up", async () => {
      const { forge_reports } = await view(build.build_id);
      return forge_reports.length >= 3 && forge_reports;
    });
    for (const report of reports) {
      expect(report).toMatchObject({ repository: "mute", outcome: "failed", attempts: 2 });
      expect(report.error).toMatch(/no answer within 0.5 s \(2 attempts\)/);
    }
    // The stand-in records a request once it has read it, which may come after the server gave it up.
    await waitFor("the six requests recorded", async () => silent.requests.length >= 6, 10_000);
    expect(silent.requests.length).toBe(6);
  });

  it("no token appears in the server's log or in any answer", async () => {
    const list = await (await builds.get("/builds?limit=100")).text();
    answers.push(list, await (await builds.get("/app-config")).text());
    const everything = [builds.app.output(), ...answers].join("\n");
    for (const token of Object.values(TOKENS)) expect(everything).not.toContain(token);
    // The refused status above and the silent host were logged: the log was written, it just holds no token.
    expect(builds.app.output()).toMatch(/was not taken/);
  });
});
