import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { stringify as stringifyYaml } from "yaml";
import { loadBuildsConfig } from "@/lib/builds/config";
import { sharedBuildsSettings } from "@/lib/builds/membership";
import { fingerprintOf, firstDifference, hostPartOf } from "@/lib/cluster/instances";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cluster-instances-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

let files = 0;
/** A builds configuration: the shared settings below with `changes` laid over them. */
function configOf(changes: Record<string, unknown> = {}) {
  const file = path.join(dir, `builds-${++files}.config.yaml`);
  fs.writeFileSync(file, stringifyYaml({ ...SHARED, ...changes }));
  return loadBuildsConfig(file);
}

const SHARED = {
  ttl: { default_seconds: 3600, max_seconds: 7200, choices: [3600] },
  runtime: { driver: "process", install: "echo install", start: "exec server" },
  repositories: [{ alias: "demo", url: ".", webhook_secret: "s3cret" }],
};

describe("the builds settings instances must share", () => {
  it("leave out what each host keeps for itself: builds_root, ports, slots, awake builds, uids, reaper interval", () => {
    const first = configOf({
      builds_root: "/srv/builds-a",
      ports: { start: 20000, end: 20010 },
      max_concurrent_builds: 1,
      max_awake_builds: 3,
      reaper_interval_seconds: 5,
    });
    const second = configOf({
      builds_root: "/srv/builds-b",
      ports: { start: 21000, end: 21010 },
      max_concurrent_builds: 4,
      runtime: { ...SHARED.runtime, run_as_uids: { start: 2_000_000, end: 2_000_100 } },
    });
    expect(fingerprintOf(sharedBuildsSettings(first))).toBe(fingerprintOf(sharedBuildsSettings(second)));
    expect(firstDifference(sharedBuildsSettings(first), sharedBuildsSettings(second))).toBeNull();
  });

  it("never hold a webhook secret, only that one is set", () => {
    const settings = JSON.stringify(sharedBuildsSettings(configOf()));
    expect(settings).not.toContain("s3cret");
    expect(settings).toContain('"webhook_secret":"(set)"');
  });

  it.each([
    [{ ttl: { ...SHARED.ttl, max_seconds: 9000 } }, "ttl.max_seconds", 7200, 9000],
    [{ runtime: { ...SHARED.runtime, install: "echo other" } }, "runtime.install", "echo install", "echo other"],
    [
      { repositories: [{ ...SHARED.repositories[0], default_ref: "develop" }] },
      "repositories[0].default_ref",
      "main",
      "develop",
    ],
    [{ preview_url: "http://{host}:{port}/" }, "preview_url", "http://127.0.0.1:{port}/", "http://{host}:{port}/"],
  ])("name the setting that differs: %j", (changes, setting, mine, theirs) => {
    const difference = firstDifference(sharedBuildsSettings(configOf()), sharedBuildsSettings(configOf(changes)));
    expect(difference).toEqual({ setting, mine, theirs });
  });

  it("compare a Compose template by its content, wherever it lives", () => {
    const a = path.join(dir, "a.compose.yaml");
    const b = path.join(dir, "b.compose.yaml");
    fs.writeFileSync(a, "services: { web: { image: x } }\n");
    fs.writeFileSync(b, "services: { web: { image: x } }\n");
    const compose = (template: string) => configOf({ runtime: { driver: "compose", compose: { template } } });
    expect(firstDifference(sharedBuildsSettings(compose(a)), sharedBuildsSettings(compose(b)))).toBeNull();
    fs.writeFileSync(b, "services: { web: { image: y } }\n");
    expect(firstDifference(sharedBuildsSettings(compose(a)), sharedBuildsSettings(compose(b)))?.setting).toBe(
      "runtime.compose.template",
    );
  });
});

describe("an instance's host part", () => {
  it("is its name without the port", () => {
    expect(hostPartOf("build-1:3000")).toBe("build-1");
    expect(hostPartOf("builder.example.com")).toBe("builder.example.com");
  });
});
