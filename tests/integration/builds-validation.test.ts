import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BuildsApp, fixtureConfig, makeBuildsFixture, startBuildsApp, tearDownBuilds } from "../support/builds";

// One repository that works, one whose URL leads nowhere (never ready), one that only builds its default ref.
let builds: BuildsApp;
beforeAll(async () => {
  const fixture = makeBuildsFixture((partial) =>
    fixtureConfig(partial, {
      ttl: "{ default_seconds: 3600, min_seconds: 600, max_seconds: 7200, choices: [600, 3600] }",
      extraRepositories: `
  - alias: gone
    url: ./no-such-repository
    default_ref: main
  - alias: pinned
    url: ./repo
    default_ref: main
    allow_request_ref: false
    priority: 20
    modules_path: addons
    module_manifest: manifest.json`,
    }),
  );
  builds = await startBuildsApp(fixture);
});
afterAll(() => tearDownBuilds(builds));

async function expectProblem(response: Response, status: number, detail: RegExp) {
  expect(response.status).toBe(status);
  expect(response.headers.get("content-type")).toBe("application/problem+json");
  const problem = await response.json();
  expect(problem).toMatchObject({ status, title: expect.any(String), type: "about:blank" });
  expect(problem.detail).toMatch(detail);
  return problem;
}

const valid = { repositories: [{ repository: "demo", ref: "main" }], modules: ["base_mod"] };

describe("POST /builds: 400 for each broken rule, naming the culprit", () => {
  const cases: [string, unknown, RegExp][] = [
    [
      "duplicate aliases",
      { ...valid, repositories: [{ repository: "demo" }, { repository: "demo", ref: "feature" }] },
      /"demo" is requested twice/,
    ],
    [
      "an alias that is not configured",
      { ...valid, repositories: [{ repository: "elsewhere" }] },
      /"elsewhere" is not configured/,
    ],
    [
      "a ref with '..'",
      { ...valid, repositories: [{ repository: "demo", ref: "main..feature" }] },
      /not allowed.*'\.\.'/,
    ],
    [
      "a ref with a leading '-'",
      { ...valid, repositories: [{ repository: "demo", ref: "--upload-pack=touch /tmp/x" }] },
      /not allowed.*'-'/,
    ],
    [
      "a ref with a space",
      { ...valid, repositories: [{ repository: "demo", ref: "main feature" }] },
      /not allowed.*spaces/,
    ],
    [
      "a ref ending in .lock",
      { ...valid, repositories: [{ repository: "demo", ref: "topic/x.lock" }] },
      /not allowed.*\.lock/,
    ],
    ["a ref with @{", { ...valid, repositories: [{ repository: "demo", ref: "main@{1}" }] }, /not allowed.*@\{/],
    [
      "a ref over 200 characters",
      { ...valid, repositories: [{ repository: "demo", ref: "a".repeat(201) }] },
      /at most 200 characters/,
    ],
    [
      "a ref other than the default where requests cannot choose",
      { ...valid, repositories: [{ repository: "pinned", ref: "feature" }] },
      /only builds its default ref "main"/,
    ],
    [
      "a ref that does not exist",
      { ...valid, repositories: [{ repository: "demo", ref: "no-such-branch" }] },
      /"no-such-branch" does not exist in the repository "demo"/,
    ],
    ["an invalid module name", { ...valid, modules: ["Base-Mod"] }, /"Base-Mod" is invalid/],
    ["a path as a module name", { ...valid, modules: ["../etc"] }, /"\.\.\/etc" is invalid/],
    ["a duplicated module", { ...valid, modules: ["base_mod", "base_mod"] }, /"base_mod" is listed twice/],
    ["a module missing at the commit", { ...valid, modules: ["feature_mod"] }, /not found in demo@main: feature_mod/],
    ["a folder without a manifest", { ...valid, modules: ["not_a_module"] }, /not found.*not_a_module/],
    ["no modules", { ...valid, modules: [] }, /At least one module/],
    [
      "more than 100 modules",
      { ...valid, modules: Array.from({ length: 101 }, (_, i) => `m${i}`) },
      /At most 100 modules/,
    ],
    ["no repositories", { ...valid, repositories: [] }, /At least one repository/],
    [
      "more than 10 repositories",
      { ...valid, repositories: Array.from({ length: 11 }, (_, i) => ({ repository: `r${i}` })) },
      /At most 10 repositories/,
    ],
    ["ttl_seconds under the minimum", { ...valid, ttl_seconds: 599 }, /between 600 and 7200; got 599/],
    ["ttl_seconds over the maximum", { ...valid, ttl_seconds: 7201 }, /between 600 and 7200; got 7201/],
    ["an unknown field", { ...valid, priority: "high" }, /Unknown field: body\.priority/],
    [
      "an unknown field in a repository",
      { ...valid, repositories: [{ repository: "demo", branch: "main" }] },
      /Unknown field: body\.repositories\.0\.branch/,
    ],
    ["both forms mixed", { ...valid, repository: "demo" }, /either `repositories` or the legacy/],
    ["a legacy ref without its repository", { ref: "main", modules: ["base_mod"] }, /needs `repository`/],
  ];
  for (const [name, body, detail] of cases) {
    it(`${name}`, async () => {
      await expectProblem(await builds.post(body), 400, detail);
    });
  }

  it("stores no build for any of them", async () => {
    expect((await (await builds.get("/builds")).json()).builds).toEqual([]);
  });
});

describe("POST /builds: request shape (400) and credentials (401)", () => {
  it("answers 400 for a body that is not JSON or has wrong JSON types, naming the fields", async () => {
    await expectProblem(await builds.post("{not json"), 400, /valid JSON/);
    const problem = await expectProblem(
      await builds.post({ repositories: "demo", modules: "base_mod", ttl_seconds: "long" }),
      400,
      /invalid fields/,
    );
    expect(problem.errors.map((e: { field: string }) => e.field).sort()).toEqual([
      "body.modules",
      "body.repositories",
      "body.ttl_seconds",
    ]);
    await expectProblem(await builds.post({ ...valid, ttl_seconds: 1.5 }), 400, /ttl_seconds/);
    await expectProblem(await builds.post({ repositories: [{ repository: "demo" }] }), 400, /body\.modules/);
    await expectProblem(await builds.post([]), 400, /body/);
  });

  it("answers 401 without a valid token", async () => {
    const response = await builds.app.fetch("/builds", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(valid),
    });
    await expectProblem(response, 401, /Authentication required/);
    expect(response.headers.get("www-authenticate")).toMatch(/^Bearer/);
  });
});

describe("POST /builds: 503 with Retry-After", () => {
  it("when the requested repository is not ready", async () => {
    const response = await builds.post({ repositories: [{ repository: "gone" }], modules: ["base_mod"] });
    await expectProblem(response, 503, /Not ready: gone/);
    expect(Number(response.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  it("when no repository is configured", async () => {
    const fixture = makeBuildsFixture((partial) =>
      fixtureConfig(partial).replace(/repositories:[\s\S]*$/, "repositories: []\n"),
    );
    const empty = await startBuildsApp(fixture);
    try {
      const response = await empty.post(valid);
      await expectProblem(response, 503, /No repository is configured/);
      expect(response.headers.get("retry-after")).toBe("30");
      expect((await (await empty.get("/app-config")).json()).repositories).toEqual([]);
    } finally {
      await tearDownBuilds(empty);
    }
  });
});

describe("GET /app-config", () => {
  it("shows each repository's readiness and modules at its default ref, never its URL", async () => {
    const response = await builds.get("/app-config");
    expect(response.status).toBe(200);
    const config = await response.json();
    expect(config).toEqual({
      version: "0.2.0",
      repositories: [
        {
          alias: "demo",
          default_ref: "main",
          allow_request_ref: true,
          priority: 10,
          ready: true,
          modules: ["base_mod", "broken", "chatty", "extra_mod", "slow_install"],
          auto_build: null,
        },
        {
          alias: "gone",
          default_ref: "main",
          allow_request_ref: true,
          priority: 10,
          ready: false,
          modules: [],
          auto_build: null,
        },
        {
          alias: "pinned",
          default_ref: "main",
          allow_request_ref: false,
          priority: 20,
          ready: true,
          modules: ["base_mod", "broken", "chatty", "extra_mod", "slow_install"],
          auto_build: null,
        },
      ],
      ttl: { default_seconds: 3600, min_seconds: 600, max_seconds: 7200, choices: [600, 3600] },
      max_concurrent_builds: 2,
      runtime: {
        driver: "process",
        ready: true,
        reason: null,
        stages: ["checkout", "install", "test", "start", "healthcheck"],
      },
      max_repositories: 10,
      max_modules: 100,
    });
    expect(JSON.stringify(config)).not.toContain(builds.fixture.repository);
    expect(fs.existsSync(builds.fixture.repository)).toBe(true);
  });
});
