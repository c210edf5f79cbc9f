import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AppServer, freePort, freePortBelowEphemeral, startAppServer } from "../support/app-server";
import { waitFor } from "../support/auto-builds";
import {
  type BuildJson,
  type BuildsApp,
  type BuildsFixture,
  connectBuildsApp,
  fixtureUids,
  makeBuildsFixture,
  tearDownBuilds,
} from "../support/builds";
import { type Gateway, ODOO_LIKE_PREVIEW, requestThrough, startGateway } from "../support/gateway";
import { registerAndGetToken } from "../support/users";

/**
 * PostgreSQL only (project integration-postgresql): two builder hosts of one database behind one gateway.
 * Each host's previews listen on its own preview_address only, alpha's on 127.0.0.1 and beta's on 127.0.0.2 (two
 * addresses of the loopback, standing for two machines' private addresses), so a preview is reached only if the
 * gateway goes to the host that runs it. The gateway asks alpha alone, which answers for beta's builds too.
 */
const DOMAIN = "preview.localhost";
let fixture: BuildsFixture;
let alpha: AppServer;
let beta: AppServer;
let builds: BuildsApp;
let gateway: Gateway;
let port: number;

function hostConfig(root: string, own: { name: string; address: string; ports: { start: number; end: number } }) {
  return `
builds_root: ${path.join(root, `builds-${own.name}`)}
max_concurrent_builds: 1
ports: { start: ${own.ports.start}, end: ${own.ports.end} }
preview_address: ${own.address}
reaper_interval_seconds: 0.5
gateway: { domain: ${DOMAIN}, port: ${port} }
runtime:
  driver: process
  run_as_uids: ${JSON.stringify(fixtureUids(own.ports))}
  install: sleep 2
  start: ${ODOO_LIKE_PREVIEW}
  healthcheck: { path: /web/login, timeout_seconds: 30 }
repositories:
  - { alias: demo, url: ./repo, default_ref: main, modules_path: addons, module_manifest: manifest.json }
`;
}

async function startInstance(name: string, configFile: string, env: Record<string, string> = {}) {
  const appPort = await freePort();
  return startAppServer({
    ...env,
    BUILDS_CONFIG: configFile,
    INSTANCE_NAME: name,
    PORT: String(appPort),
    INSTANCE_URL: `http://127.0.0.1:${appPort}`,
  });
}

beforeAll(async () => {
  port = await freePortBelowEphemeral();
  fixture = makeBuildsFixture((f) => hostConfig(f.root, { name: "alpha", address: "127.0.0.1", ports: f.ports }));
  const betaConfig = path.join(fixture.root, "beta.config.yaml");
  const betaPorts = { start: fixture.ports.end + 1, end: fixture.ports.end + 10 };
  fs.writeFileSync(betaConfig, hostConfig(fixture.root, { name: "beta", address: "127.0.0.2", ports: betaPorts }));
  alpha = await startInstance("alpha", fixture.configFile);
  beta = await startInstance("beta", betaConfig, { DATABASE_URL: alpha.databaseUrl });
  const { authorization } = await registerAndGetToken(alpha);
  builds = connectBuildsApp(alpha, fixture, authorization);
  gateway = await startGateway({
    port,
    appUrl: alpha.baseUrl,
    env: {
      DATABASE_URL: alpha.databaseUrl,
      BUILDS_CONFIG: fixture.configFile,
      NEXTAUTH_SECRET: "x".repeat(40),
    },
    dataDir: alpha.dataDir,
  });
}, 180_000);
afterAll(async () => {
  await gateway?.stop();
  // beta's builds are destroyed through alpha, which forwards to beta; beta shares alpha's database.
  if (builds) await tearDownBuilds({ ...builds, app: { ...alpha, stop: async () => {} } });
  await beta?.stop();
  await alpha?.stop();
});

describe("two builder hosts behind one gateway", () => {
  it("serves each build from the host that runs it, at the address that host gives its previews", async () => {
    // Posted to each instance at once: with one slot each, each host takes one.
    const posted = await Promise.all(
      [alpha, beta].map(async (instance) => {
        const response = await instance.fetch("/builds", {
          method: "POST",
          headers: { ...builds.authorization, "Content-Type": "application/json" },
          body: JSON.stringify({ repositories: [{ repository: "demo" }], modules: ["base_mod"] }),
        });
        expect(response.status).toBe(202);
        return (await response.json()) as BuildJson;
      }),
    );
    const running = await Promise.all(posted.map((build) => builds.waitForStatus(build.build_id, ["running"], 90_000)));
    expect(new Set(running.map((build) => build.host))).toEqual(new Set(["alpha", "beta"]));
    for (const build of running) {
      const address = build.host === "alpha" ? "127.0.0.1" : "127.0.0.2";
      const name = `${build.build_id}.${DOMAIN}`;
      // Where the app says the name leads: that host's preview address.
      const resolved = await alpha.fetch("/gateway/resolve", { headers: { "X-Gateway-Host": `${name}:${port}` } });
      expect(resolved.headers.get("x-gateway-upstream")).toMatch(
        new RegExp(`^${address.replaceAll(".", "\\.")}:\\d+$`),
      );
      // And the preview answers through the gateway, listening there only.
      const answer = await waitFor(
        `${name} through the gateway`,
        async () => {
          const response = await requestThrough(port, { host: `${name}:${port}` });
          return response.status === 200 && response;
        },
        5_000,
      );
      expect(JSON.parse(answer.body)).toMatchObject({ build_id: build.build_id, listening: address });
      expect(build.preview_url).toBe(`http://${name}:${port}/`);
    }
  });

  it("wakes a build of the other host on a visit, through the instance the gateway asks", async () => {
    const { builds: list } = (await (await alpha.fetch("/builds?limit=10")).json()) as { builds: BuildJson[] };
    const onBeta = list.find((build) => build.host === "beta" && build.status === "running")!;
    // Put to sleep through alpha, which forwards to beta.
    const slept = await alpha.fetch(`/builds/${onBeta.build_id}/sleep`, {
      method: "POST",
      headers: builds.authorization,
    });
    expect(slept.status).toBe(200);
    const name = `${onBeta.build_id}.${DOMAIN}:${port}`;
    const visit = await waitFor(
      "a visit to see it asleep",
      async () => {
        const answer = await requestThrough(port, { host: name, headers: { Accept: "text/html" } });
        return answer.status === 503 && answer.body.includes("Waking this preview up") && answer;
      },
      5_000,
    );
    expect(visit.headers["retry-after"]).toBe("2");
    const answer = await waitFor(
      "the woken preview",
      async () => {
        const response = await requestThrough(port, { host: name });
        return response.status === 200 && response;
      },
      60_000,
    );
    expect(JSON.parse(answer.body)).toMatchObject({ build_id: onBeta.build_id, listening: "127.0.0.2" });
  });

  it("lets an instance without the gateway start beside them: turning it on goes one instance at a time", async () => {
    const config = path.join(fixture.root, "gamma.config.yaml");
    const ports = { start: fixture.ports.end + 11, end: fixture.ports.end + 15 };
    fs.writeFileSync(
      config,
      hostConfig(fixture.root, { name: "gamma", address: "127.0.0.1", ports })
        .replace(/^gateway: .*$/m, "")
        .replace("max_concurrent_builds: 1", "max_concurrent_builds: 0"),
    );
    const gamma = await startInstance("gamma", config, { DATABASE_URL: alpha.databaseUrl });
    try {
      const { builds: list } = (await (await gamma.fetch("/builds?limit=10")).json()) as { builds: BuildJson[] };
      // Its links stay as they were until it is restarted with the gateway.
      expect(list.every((build) => (build.preview_names as unknown[]).length === 0)).toBe(true);
      // A different gateway is a different shared setting: refused as any other.
      const other = path.join(fixture.root, "delta.config.yaml");
      fs.writeFileSync(
        other,
        hostConfig(fixture.root, { name: "delta", address: "127.0.0.1", ports }).replace(
          `domain: ${DOMAIN}`,
          "domain: other.localhost",
        ),
      );
      await expect(startInstance("delta", other, { DATABASE_URL: alpha.databaseUrl })).rejects.toThrow(
        /gateway\.domain differs from the live instance/,
      );
    } finally {
      await gamma.stop();
    }
  });
});
