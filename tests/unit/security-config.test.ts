import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fillPreviewTemplate, loadBuildsConfig } from "@/lib/builds/config";
import { assertCanActOnBuild, canActOnBuild } from "@/lib/builds/permissions";
import { badRequest, HttpProblem, MAX_LISTED_ERRORS, problemResponse } from "@/lib/http/problem";
import { getEnv, resetEnvCache } from "@/lib/server/env";

const original = { ...process.env };
let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "security-config-"));
  for (const key of Object.keys(process.env)) delete process.env[key];
  Object.assign(process.env, { PATH: original.PATH, DATABASE_URL: `file:${dir}/app.db` });
  resetEnvCache();
});
afterEach(() => {
  for (const key of Object.keys(process.env)) delete process.env[key];
  Object.assign(process.env, original);
  resetEnvCache();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("lib/builds/permissions", () => {
  const build = { id: "b1", createdById: 7 };
  it("allows the creator and admins, refuses others with a 403 problem", () => {
    expect(canActOnBuild({ id: 7, role: "user" }, build)).toBe(true);
    expect(canActOnBuild({ id: 1, role: "admin" }, build)).toBe(true);
    expect(() => assertCanActOnBuild({ id: 8, role: "user" }, build)).toThrow(HttpProblem);
    try {
      assertCanActOnBuild({ id: 8, role: "user" }, build);
    } catch (error) {
      expect((error as HttpProblem).status).toBe(403);
    }
  });
  it("keeps builds the service started (no creator) for admins", () => {
    expect(canActOnBuild({ id: 7, role: "user" }, { id: "b2", createdById: null })).toBe(false);
    expect(canActOnBuild({ id: 1, role: "admin" }, { id: "b2", createdById: null })).toBe(true);
  });
});

describe("preview_url", () => {
  const write = (extra: string) => {
    const file = path.join(dir, "builds.yaml");
    fs.writeFileSync(file, `builds_root: ./b\n${extra}\n`);
    return file;
  };
  it("defaults to the demo's 127.0.0.1 and fills a host template", () => {
    expect(loadBuildsConfig(write("")).preview_url).toBe("http://127.0.0.1:{port}/");
    const template = loadBuildsConfig(write('preview_url: "http://{build_id}.preview.localhost:{port}/"')).preview_url;
    expect(fillPreviewTemplate(template, "abc", 18001, "build-1")).toBe("http://abc.preview.localhost:18001/");
    // {host}: the host part of the instance running the build, for several builder hosts.
    const perHost = loadBuildsConfig(
      write('preview_url: "http://{build_id}.{host}.preview.localhost:{port}/"'),
    ).preview_url;
    expect(fillPreviewTemplate(perHost, "abc", 18001, "build-2")).toBe("http://abc.build-2.preview.localhost:18001/");
  });
  it("refuses a template that is not an http(s) URL", () => {
    expect(() => loadBuildsConfig(write('preview_url: "javascript:alert({port})"'))).toThrow(/preview_url/);
    expect(() => loadBuildsConfig(write('preview_url: "not a url"'))).toThrow(/preview_url/);
  });
});

describe("environment", () => {
  it("reads ADMIN_EMAILS, REGISTRATION and TRUSTED_PROXIES", () => {
    Object.assign(process.env, {
      ADMIN_EMAILS: " Boss@Example.com ,x@y.z",
      REGISTRATION: "closed",
      TRUSTED_PROXIES: "10.0.0.1, ::ffff:10.0.0.2",
    });
    const env = getEnv();
    expect([...env.ADMIN_EMAILS]).toEqual(["boss@example.com", "x@y.z"]);
    expect(env.REGISTRATION).toBe("closed");
    expect([...env.TRUSTED_PROXIES]).toEqual(["10.0.0.1", "10.0.0.2"]);
  });
  it("stops on a trusted proxy that is not an IP address, or an unknown registration mode", () => {
    process.env.TRUSTED_PROXIES = "proxy.example.com";
    expect(() => getEnv()).toThrow(/TRUSTED_PROXIES/);
    resetEnvCache();
    delete process.env.TRUSTED_PROXIES;
    process.env.REGISTRATION = "invite";
    expect(() => getEnv()).toThrow(/REGISTRATION/);
  });
  it("stops on an empty or short secret file", () => {
    fs.writeFileSync(path.join(dir, "nextauth-secret"), "short");
    expect(() => getEnv()).toThrow(/holds 5 characters, at least 32 are needed/);
  });
});

describe("problem replies", () => {
  it("list at most MAX_LISTED_ERRORS errors and shorten long texts", async () => {
    const errors = Array.from({ length: 5000 }, (_, i) => ({
      field: `body.${"f".repeat(500)}${i}`,
      message: "is not a field",
    }));
    const response = problemResponse(badRequest("x".repeat(100_000), errors));
    const text = await response.text();
    expect(text.length).toBeLessThan(8000);
    expect(JSON.parse(text).errors).toHaveLength(MAX_LISTED_ERRORS);
  });
});
