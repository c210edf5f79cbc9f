import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { InvalidBuildsConfigError, loadBuildsConfig } from "@/lib/builds/config";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "builds-config-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function configFile(yaml: string, name = "builds.config.yaml") {
  const file = path.join(dir, name);
  fs.writeFileSync(file, yaml);
  return file;
}

function errorOf(yaml: string): string {
  try {
    loadBuildsConfig(configFile(yaml));
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidBuildsConfigError);
    return (error as Error).message;
  }
  throw new Error("the configuration was accepted");
}

describe("loadBuildsConfig", () => {
  it("fills the defaults and resolves paths against the file's folder", () => {
    const config = loadBuildsConfig(
      configFile(`
repositories:
  - { alias: second, url: ../elsewhere, priority: 20 }
  - { alias: demo, url: ., default_ref: main }
  - { alias: remote, url: "https://example.com/repo.git", priority: 20 }
  - { alias: scp, url: "git@example.com:org/repo.git", priority: 30 }
`),
    );
    expect(config.builds_root).toBe(path.join(dir, "builds"));
    expect(config).toMatchObject({
      max_concurrent_builds: 2,
      max_queued_builds: 50,
      ttl: { default_seconds: 14400, min_seconds: 300, max_seconds: 604800, choices: [3600, 14400, 28800, 86400] },
      ports: { start: 18000, end: 19999 },
      stage_timeout_seconds: 1800,
      stage_log_limit_mb: 50,
      runtime: {
        driver: "process",
        run_as_uids: { start: 1_900_000_000, end: 1_900_001_999 },
        healthcheck: { path: "/", timeout_seconds: 120 },
      },
      limits: { live_per_user: 5, queued_per_user: 3, admin_live_per_user: null, admin_queued_per_user: null },
    });
    // Sorted by priority, then alias: the order of ADDONS_PATH.
    expect(config.repositories.map((r) => [r.alias, r.resolvedUrl])).toEqual([
      ["demo", dir],
      ["remote", "https://example.com/repo.git"],
      ["second", path.resolve(dir, "../elsewhere")],
      ["scp", "git@example.com:org/repo.git"],
    ]);
    expect(config.repositories[0]).toMatchObject({
      allow_request_ref: true,
      modules_path: ".",
      module_manifest: "__manifest__.py",
    });
  });

  it("resolves the compose template against the file's folder and fills the compose defaults", () => {
    const config = loadBuildsConfig(
      configFile("runtime: { driver: compose, compose: { template: odoo/compose.yaml } }"),
    );
    expect(config.runtime.compose).toEqual({
      template: path.join(dir, "odoo", "compose.yaml"),
      cli: "auto",
      sources_mount: "/mnt/sources",
      web_service: "web",
      stop_timeout_seconds: 5,
    });
  });

  it("accepts the configuration the project ships", () => {
    const shipped = loadBuildsConfig(path.resolve("builds.config.yaml"));
    expect(shipped.repositories).toMatchObject([
      { alias: "demo", resolvedUrl: path.resolve("."), default_ref: "main" },
    ]);
    // Outside the data folder, which builds running as runtime.run_as_uids may not enter.
    expect(shipped.builds_root).toBe(path.resolve("builds"));
  });

  it.each([
    ["ttl: { min_seconds: 0 }", /builds\.config\.yaml: ttl\.min_seconds: must be positive/],
    [
      "ttl: { min_seconds: 900, max_seconds: 600, default_seconds: 700, choices: [] }",
      /ttl\.min_seconds: must not be greater than ttl\.max_seconds/,
    ],
    ["ttl: { choices: [60] }", /ttl\.choices\[0\]: must be between/],
    ["ports: { start: 20000, end: 19000 }", /ports\.end: must not be less than ports\.start/],
    ["max_concurrent_builds: two", /max_concurrent_builds: /],
    ["runtime: { driver: docker }", /runtime\.driver: must be "process" or "compose"/],
    ["runtime: { driver: compose }", /runtime\.compose: is required with driver compose/],
    ["runtime: { driver: compose, compose: { template: t.yaml, cli: podman } }", /runtime\.compose\.cli: /],
    [
      "runtime: { driver: compose, compose: { template: t.yaml, install: { service: web, command: [odoo, '${HOME}'] } } }",
      /runtime\.compose\.install\.command: \$\{HOME\} is not one of BUILD_ID/,
    ],
    [
      "runtime: { driver: compose, compose: { template: t.yaml, test: { service: 'a b', command: [x] } } }",
      /runtime\.compose\.test\.service: must match/,
    ],
    ["runtime: { healthcheck: { path: health } }", /runtime\.healthcheck\.path: must start with \//],
    ["stage_log_limit_mb: 0", /stage_log_limit_mb: must be a positive number of megabytes/],
    ["runtime: { run_as: nobody }", /runtime\.run_as: was replaced by run_as_uids/],
    ["runtime: { run_as_uids: { start: 0 } }", /runtime\.run_as_uids\.start: must be at least 1000/],
    [
      "runtime: { run_as_uids: { start: 200000, end: 100000 } }",
      /runtime\.run_as_uids\.end: must not be less than run_as_uids\.start/,
    ],
    ["repositories: [{ alias: Demo, url: . }]", /repositories\[0\]\.alias: must match/],
    [
      "repositories: [{ alias: demo, url: ., default_ref: '-x' }]",
      /repositories\[0\]\.default_ref: must not start with '-'/,
    ],
    [
      "repositories: [{ alias: demo, url: . }, { alias: demo, url: . }]",
      /repositories\[1\]\.alias: duplicates the alias "demo"/,
    ],
    [
      "repositories: [{ alias: demo, url: ., modules_path: ../up }]",
      /repositories\[0\]\.modules_path: must be a path inside the repository/,
    ],
    ["max_builds: 3", /builds\.config\.yaml: max_builds: /],
    ["limits: { live_per_user: 0 }", /limits\.live_per_user: must be at least 1/],
    ["limits: { queued_per_user: 1.5 }", /limits\.queued_per_user: must be a whole number of builds/],
    [
      "limits: { live_per_user: 2, queued_per_user: 3 }",
      /limits\.queued_per_user: must not be greater than limits\.live_per_user/,
    ],
    [
      "limits: { admin_live_per_user: 2, admin_queued_per_user: 3 }",
      /limits\.admin_queued_per_user: must not be greater than limits\.admin_live_per_user/,
    ],
    ["limits: { per_user: 3 }", /limits\.per_user: /],
    ["ttl: [", /builds\.config\.yaml: not valid YAML/],
  ])("rejects %s naming the key", (yaml, message) => {
    expect(errorOf(yaml)).toMatch(message);
  });

  it("names a missing file", () => {
    expect(() => loadBuildsConfig(path.join(dir, "missing.yaml"))).toThrow(/missing\.yaml: cannot read/);
  });

  it("stops the start (scripts/prepare-start.ts) with the message", () => {
    const file = configFile("ports: { start: 80 }", "bad.yaml");
    let output = "";
    try {
      execFileSync(path.resolve("node_modules/.bin/tsx"), ["scripts/prepare-start.ts"], {
        env: { ...process.env, BUILDS_CONFIG: file, DATABASE_URL: `file:${path.join(dir, "app.db")}` },
        stdio: "pipe",
      });
    } catch (error) {
      output = String((error as { stderr: Buffer }).stderr);
      expect((error as { status: number }).status).toBe(1);
    }
    expect(output).toMatch(/bad\.yaml: ports\.start: must be at least 1024/);
    // A child process that loads tsx: seconds on a busy machine.
  }, 30_000);
});

describe("auto_build, webhooks and retention in the configuration", () => {
  it("reads auto_build, the webhook secret (inline or from the environment) and retention_days", () => {
    process.env.BUILDS_CONFIG_TEST_SECRET = "from-the-environment";
    try {
      const config = loadBuildsConfig(
        configFile(`
retention_days: 3
repositories:
  - alias: inline
    url: .
    webhook_secret: inline-secret
    auto_build: { branches: [main, "feature/*"], modules: [sales, hr], ttl_seconds: 3600 }
  - alias: env
    url: .
    webhook_secret_env: BUILDS_CONFIG_TEST_SECRET
    watch_interval_seconds: 60
    auto_build: { branches: ["**"] }
  - alias: plain
    url: .
`),
      );
      expect(config.retention_days).toBe(3);
      const [env, inline, plain] = config.repositories;
      expect(inline).toMatchObject({
        webhookSecret: "inline-secret",
        auto_build: { branches: ["main", "feature/*"], modules: ["sales", "hr"], ttl_seconds: 3600 },
      });
      expect(env).toMatchObject({
        webhookSecret: "from-the-environment",
        watch_interval_seconds: 60,
        auto_build: { modules: "all" },
      });
      expect(plain.webhookSecret).toBeNull();
      expect(plain.auto_build).toBeUndefined();
    } finally {
      delete process.env.BUILDS_CONFIG_TEST_SECRET;
    }
    expect(loadBuildsConfig(configFile("repositories: []")).retention_days).toBe(14);
  });

  it.each([
    [
      "repositories: [{ alias: a, url: ., auto_build: { branches: [] } }]",
      /repositories\[0\]\.auto_build\.branches: must list at least one branch glob/,
    ],
    [
      "repositories: [{ alias: a, url: ., auto_build: { branches: [main], modules: [Bad] } }]",
      /repositories\[0\]\.auto_build\.modules/,
    ],
    [
      "repositories: [{ alias: a, url: ., auto_build: { branches: [main], ttl_seconds: 10 } }]",
      /repositories\[0\]\.auto_build\.ttl_seconds: must be between ttl\.min_seconds and ttl\.max_seconds/,
    ],
    [
      "repositories: [{ alias: a, url: ., webhook_secret: x, webhook_secret_env: Y }]",
      /repositories\[0\]\.webhook_secret_env: give either webhook_secret or webhook_secret_env/,
    ],
    [
      "repositories: [{ alias: a, url: ., webhook_secret_env: BUILDS_CONFIG_TEST_UNSET }]",
      /repositories\[0\]\.webhook_secret_env: the environment variable BUILDS_CONFIG_TEST_UNSET is not set/,
    ],
    [
      "repositories: [{ alias: a, url: ., watch_interval_seconds: 5 }]",
      /repositories\[0\]\.watch_interval_seconds: needs auto_build/,
    ],
    ["retention_days: 0", /retention_days: must be a positive number of days/],
    [
      "repositories: [{ alias: a, url: ., forge: { kind: bitbucket, project: a/b, token_env: T } }]",
      /repositories\[0\]\.forge\.kind: must be "github", "gitlab" or "gitea"/,
    ],
    [
      "repositories: [{ alias: a, url: ., forge: { kind: gitea, project: a/b, token_env: BUILDS_CONFIG_TEST_TOKEN } }]",
      /repositories\[0\]\.forge\.api_url: is required with kind gitea/,
    ],
    [
      "repositories: [{ alias: a, url: ., forge: { kind: github, project: just-a-name, token_env: BUILDS_CONFIG_TEST_TOKEN } }]",
      /repositories\[0\]\.forge\.project: must be owner\/name/,
    ],
    [
      "repositories: [{ alias: a, url: ., forge: { kind: github, project: a/b, token_env: ghp_abc-123 } }]",
      /repositories\[0\]\.forge\.token_env: must be an environment variable name/,
    ],
    [
      "repositories: [{ alias: a, url: ., forge: { kind: github, project: a/b, token_env: BUILDS_CONFIG_TEST_UNSET } }]",
      /repositories\[0\]\.forge\.token_env: the environment variable BUILDS_CONFIG_TEST_UNSET is not set/,
    ],
    [
      "repositories: [{ alias: a, url: ., forge: { kind: github, project: a/b, token_env: T, token: x } }]",
      /repositories\[0\]\.forge\.token: Unrecognized key/i,
    ],
    [
      "repositories: [{ alias: a, url: ., forge: { kind: gitlab, api_url: ftp://gitlab.example, project: '7', token_env: T } }]",
      /repositories\[0\]\.forge\.api_url: must be the http\(s\) address/,
    ],
  ])("rejects %s naming the key", (yaml, message) => {
    process.env.BUILDS_CONFIG_TEST_TOKEN = "t0ken";
    try {
      expect(errorOf(yaml)).toMatch(message);
    } finally {
      delete process.env.BUILDS_CONFIG_TEST_TOKEN;
    }
  });

  it("reads a forge block: the host's default API, the default context, forks off, and never the token itself", () => {
    process.env.BUILDS_CONFIG_TEST_TOKEN = "t0ken-value";
    try {
      const config = loadBuildsConfig(
        configFile(`
repositories:
  - alias: hub
    url: .
    auto_build: { branches: [main] }
    forge: { kind: github, project: acme/addons, token_env: BUILDS_CONFIG_TEST_TOKEN }
  - alias: lab
    url: .
    forge: { kind: gitlab, project: "group/sub/addons", token_env: BUILDS_CONFIG_TEST_TOKEN, context: ci/preview, comment: true }
  - alias: tea
    url: .
    forge: { kind: gitea, api_url: "https://tea.example.com/api/v1/", project: acme/addons, token_env: BUILDS_CONFIG_TEST_TOKEN, build_forks: true }
`),
      );
      const [hub, lab, tea] = config.repositories;
      expect(hub.auto_build?.pull_requests).toBe(true);
      expect(hub.forge).toEqual({
        kind: "github",
        api_url: "https://api.github.com",
        project: "acme/addons",
        token_env: "BUILDS_CONFIG_TEST_TOKEN",
        context: "bcv-runbot/preview",
        comment: false,
        build_forks: false,
        timeout_seconds: 10,
        retries: 3,
      });
      expect(lab.forge).toMatchObject({
        api_url: "https://gitlab.com/api/v4",
        project: "group/sub/addons",
        context: "ci/preview",
        comment: true,
      });
      expect(tea.forge).toMatchObject({ api_url: "https://tea.example.com/api/v1", build_forks: true });
      expect(JSON.stringify(config)).not.toContain("t0ken-value");
    } finally {
      delete process.env.BUILDS_CONFIG_TEST_TOKEN;
    }
  });
});

describe("max_awake_builds in the configuration", () => {
  it("is unset (no limit) by default, and read as a whole number of builds", () => {
    expect(loadBuildsConfig(configFile("repositories: [{ alias: demo, url: . }]")).max_awake_builds).toBeUndefined();
    expect(
      loadBuildsConfig(configFile("max_awake_builds: 3\nrepositories: [{ alias: demo, url: . }]")).max_awake_builds,
    ).toBe(3);
    expect(
      loadBuildsConfig(configFile("max_awake_builds: 1\nrepositories: [{ alias: demo, url: . }]")).max_awake_builds,
    ).toBe(1);
  });

  it.each([
    ["max_awake_builds: 0", /builds\.config\.yaml: max_awake_builds: must be at least 1/],
    ["max_awake_builds: -2", /max_awake_builds: must be at least 1/],
    ["max_awake_builds: 1.5", /max_awake_builds: must be an integer/],
    ["max_awake_builds: three", /max_awake_builds: /],
    ["max_awake_builds: null", /max_awake_builds: /],
  ])("rejects %s naming the key", (yaml, message) => {
    expect(errorOf(yaml)).toMatch(message);
  });
});
