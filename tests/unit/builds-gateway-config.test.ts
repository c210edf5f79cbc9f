import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { InvalidBuildsConfigError, loadBuildsConfig } from "@/lib/builds/config";
import { refuseDashboardUnderPreviews } from "@/lib/builds/preview-names";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gateway-config-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function load(yaml: string) {
  const file = path.join(dir, "builds.config.yaml");
  fs.writeFileSync(file, yaml);
  return loadBuildsConfig(file);
}

function errorOf(yaml: string): string {
  try {
    load(yaml);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidBuildsConfigError);
    return (error as Error).message;
  }
  throw new Error("the configuration was accepted");
}

describe("gateway: and preview_address in the builds configuration", () => {
  it("are optional: without them previews listen on loopback and no gateway is used", () => {
    const config = load("repositories: []\n");
    expect(config.gateway).toBeUndefined();
    expect(config.preview_address).toBe("127.0.0.1");
  });

  it("default the port to the scheme's and lowercase the domain", () => {
    expect(load("gateway: { domain: Preview.Example.com }\n").gateway).toEqual({
      domain: "preview.example.com",
      scheme: "http",
      port: 80,
      wakes_per_hour: 6,
    });
    expect(load("gateway: { domain: preview.example.com, scheme: https }\n").gateway).toMatchObject({ port: 443 });
    expect(load("gateway: { domain: preview.localhost, port: 8080 }\npreview_address: 10.0.0.11\n")).toMatchObject({
      gateway: { domain: "preview.localhost", scheme: "http", port: 8080 },
      preview_address: "10.0.0.11",
    });
  });

  it("refuses a domain that is not a DNS name, a bad scheme or port, and a preview address that is a name", () => {
    expect(errorOf("gateway: { domain: localhost }\n")).toMatch(/gateway\.domain: must be a DNS name/);
    expect(errorOf("gateway: { domain: '*.preview.example.com' }\n")).toMatch(/gateway\.domain/);
    expect(errorOf("gateway: { domain: preview_x.example.com }\n")).toMatch(/gateway\.domain/);
    expect(errorOf(`gateway: { domain: ${"a".repeat(190)}.com }\n`)).toMatch(/gateway\.domain/);
    expect(errorOf("gateway: { domain: p.example.com, scheme: ftp }\n")).toMatch(/gateway\.scheme/);
    expect(errorOf("gateway: { domain: p.example.com, port: 0 }\n")).toMatch(/gateway\.port/);
    expect(errorOf("gateway: { domain: p.example.com, host: x }\n")).toMatch(/gateway\.host/);
    expect(errorOf("preview_address: build-1.internal\n")).toMatch(/preview_address: must be an IP address/);
  });

  it("stops the start when the dashboard lies under the preview domain", () => {
    const config = load("gateway: { domain: example.com }\n");
    expect(() => refuseDashboardUnderPreviews(config, ["https://runbot.example.com", undefined])).toThrow(
      /builds\.config\.yaml: gateway\.domain: the dashboard \(https:\/\/runbot\.example\.com\) lies under the preview domain example\.com/,
    );
    expect(() => refuseDashboardUnderPreviews(config, ["https://runbot.example.org"])).not.toThrow();
    expect(() => refuseDashboardUnderPreviews(load("repositories: []\n"), ["https://example.com"])).not.toThrow();
  });
});

describe("preview_access and preview_bypass_secret_env of a repository", () => {
  it("default to public previews without a bypass, and read the bypass secret from the named variable", () => {
    const secret = "a bypass secret of 32 characters";
    process.env.GATEWAY_CONFIG_TEST_BYPASS = secret;
    try {
      const config = load(
        "repositories:\n  - { alias: a, url: . }\n  - { alias: b, url: ., preview_access: users, preview_bypass_secret_env: GATEWAY_CONFIG_TEST_BYPASS }\n",
      );
      expect(config.repositories.map((r) => [r.alias, r.preview_access, r.previewBypassSecret])).toEqual([
        ["a", "public", null],
        ["b", "users", secret],
      ]);
    } finally {
      delete process.env.GATEWAY_CONFIG_TEST_BYPASS;
    }
  });

  it("refuses another access, a bad variable name, and a variable that is not set", () => {
    expect(errorOf("repositories:\n  - { alias: a, url: ., preview_access: private }\n")).toMatch(
      /repositories\[0\]\.preview_access: must be "public" or "users"/,
    );
    expect(errorOf("repositories:\n  - { alias: a, url: ., preview_bypass_secret_env: 'A B' }\n")).toMatch(
      /repositories\[0\]\.preview_bypass_secret_env: must be an environment variable name/,
    );
    expect(errorOf("repositories:\n  - { alias: a, url: ., preview_bypass_secret_env: NOT_SET_ANYWHERE_X }\n")).toMatch(
      /repositories\[0\]\.preview_bypass_secret_env: the environment variable NOT_SET_ANYWHERE_X is not set/,
    );
  });

  it("refuses a bypass secret under 32 characters at start", () => {
    process.env.GATEWAY_CONFIG_TEST_SHORT_BYPASS = "x".repeat(31);
    try {
      expect(
        errorOf(
          "repositories:\n  - { alias: a, url: ., preview_bypass_secret_env: GATEWAY_CONFIG_TEST_SHORT_BYPASS }\n",
        ),
      ).toMatch(
        /repositories\[0\]\.preview_bypass_secret_env: the environment variable GATEWAY_CONFIG_TEST_SHORT_BYPASS holds 31 characters; a bypass secret needs at least 32/,
      );
    } finally {
      delete process.env.GATEWAY_CONFIG_TEST_SHORT_BYPASS;
    }
  });
});
