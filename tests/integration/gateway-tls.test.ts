import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import https from "node:https";
import os from "node:os";
import path from "node:path";
import tls from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NGINX_TEMP_FOLDERS, renderMainConfig } from "@/lib/gateway/nginx-config";
import { productionGatewayConfig } from "@/lib/gateway/production";
import { stopProcessGroup } from "../../tools/processes";
import { freePortBelowEphemeral } from "../support/app-server";
import {
  type BuildJson,
  type BuildsApp,
  fixtureUids,
  makeBuildsFixture,
  startBuildsApp,
  tearDownBuilds,
} from "../support/builds";
import { ODOO_LIKE_PREVIEW } from "../support/gateway";
import { findNginx } from "../support/nginx";

/**
 * The production gateway (deploy/nginx/previews.conf, as `npm run gateway -- --print-production-config` writes it)
 * served for real: its marked lines pointed at loopback ports, this run's cache folder and a wildcard certificate
 * made here for *.preview.example.com (a DNS-01 challenge's, in production), in front of the built app and a build
 * of the stand-in Odoo. Requests name the host by SNI and Host, as a browser that resolved it does.
 */
const DOMAIN = "preview.example.com";
let folder: string;
let nginx: ChildProcess;
let builds: BuildsApp;
let httpsPort: number;
let httpPort: number;
let certificate: string;
let build: BuildJson;

beforeAll(async () => {
  folder = fs.mkdtempSync(path.join(os.tmpdir(), "gateway-tls-"));
  for (const name of NGINX_TEMP_FOLDERS) fs.mkdirSync(path.join(folder, "temp", name), { recursive: true });
  execFileSync(
    "openssl",
    [
      ...["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", `/CN=*.${DOMAIN}`],
      ...["-addext", `subjectAltName=DNS:*.${DOMAIN}`],
      ...["-keyout", path.join(folder, "privkey.pem"), "-out", path.join(folder, "fullchain.pem")],
    ],
    { stdio: "ignore" },
  );
  certificate = fs.readFileSync(path.join(folder, "fullchain.pem"), "utf8");
  httpsPort = await freePortBelowEphemeral();
  httpPort = await freePortBelowEphemeral();
  const fixture = makeBuildsFixture(
    (f) => `
builds_root: ${f.buildsRoot}
ports: { start: ${f.ports.start}, end: ${f.ports.end} }
gateway: { domain: ${DOMAIN}, scheme: https, port: ${httpsPort} }
runtime:
  driver: process
  run_as_uids: ${JSON.stringify(fixtureUids(f.ports))}
  start: ${ODOO_LIKE_PREVIEW}
  healthcheck: { path: /web/login, timeout_seconds: 30 }
repositories:
  - { alias: demo, url: ./repo, default_ref: main, modules_path: addons, module_manifest: manifest.json }
`,
  );
  builds = await startBuildsApp(fixture);
  const created = await builds.post({ repositories: [{ repository: "demo" }], modules: ["base_mod"] });
  build = await builds.waitForStatus(((await created.json()) as BuildJson).build_id, ["running"], 60_000);
  const site = productionGatewayConfig()
    .replaceAll(`/etc/letsencrypt/live/${DOMAIN}`, folder)
    .replaceAll("/var/cache/nginx/previews", path.join(folder, "cache"))
    .replace("server 127.0.0.1:3000;", `server ${new URL(builds.app.baseUrl).host};`)
    .replaceAll(/listen 443 ssl http2( default_server)?;/g, `listen 127.0.0.1:${httpsPort} ssl http2$1;`)
    .replaceAll(/listen 80( default_server)?;/g, `listen 127.0.0.1:${httpPort}$1;`)
    .replaceAll(/ *listen \[::\]:\d+[^;]*;.*\n/g, "");
  fs.writeFileSync(path.join(folder, "previews.conf"), site);
  const user = process.getuid?.() === 0 ? os.userInfo().username : undefined;
  fs.writeFileSync(
    path.join(folder, "nginx.conf"),
    renderMainConfig({ folder, site: path.join(folder, "previews.conf"), user, workers: 1 }),
  );
  nginx = spawn(
    findNginx(),
    ["-p", folder, "-c", path.join(folder, "nginx.conf"), "-e", path.join(folder, "error.log")],
    {
      stdio: "ignore",
      detached: true,
    },
  );
  const deadline = Date.now() + 15_000;
  while (
    !(await get(httpPort, `x.${DOMAIN}`).then(
      () => true,
      () => false,
    ))
  ) {
    if (Date.now() > deadline)
      throw new Error(`nginx did not start: ${fs.readFileSync(path.join(folder, "error.log"), "utf8")}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}, 180_000);
afterAll(async () => {
  if (nginx) await stopProcessGroup(nginx);
  await tearDownBuilds(builds);
  fs.rmSync(folder, { recursive: true, force: true });
});

function get(port: number, host: string) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>((resolve, reject) => {
    http
      .get({ host: "127.0.0.1", port, path: "/web?x=1", headers: { Host: host }, agent: false }, (response) => {
        let body = "";
        response.on("data", (chunk) => (body += chunk));
        response.on("end", () => resolve({ status: response.statusCode!, headers: response.headers, body }));
      })
      .on("error", reject);
  });
}

function getTls(servername: string, path = "/") {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>((resolve, reject) => {
    https
      .get(
        {
          host: "127.0.0.1",
          port: httpsPort,
          path,
          servername,
          ca: certificate,
          headers: { Host: `${servername}:${httpsPort}` },
          agent: false,
        },
        (response) => {
          let body = "";
          response.on("data", (chunk) => (body += chunk));
          response.on("end", () => resolve({ status: response.statusCode!, headers: response.headers, body }));
        },
      )
      .on("error", reject);
  });
}

describe("deploy/nginx/previews.conf, served", () => {
  it("serves a preview over TLS with the wildcard certificate, as https with its forwarded headers", async () => {
    const name = `${build.build_id}.${DOMAIN}`;
    expect(build.preview_url).toBe(`https://${name}:${httpsPort}/`);
    const answer = await getTls(name);
    expect(answer.status).toBe(200);
    const seen = JSON.parse(answer.body) as { build_id: string; url_root: string; headers: Record<string, string> };
    expect(seen.build_id).toBe(build.build_id);
    expect(seen.url_root).toBe(`https://${name}:${httpsPort}/`);
    expect(seen.headers["x-forwarded-proto"]).toBe("https");
    expect(answer.headers["strict-transport-security"]).toBe("max-age=31536000");
  });

  it("sends plain HTTP to HTTPS, and refuses other hosts", async () => {
    const redirect = await get(httpPort, `${build.build_id}.${DOMAIN}`);
    expect(redirect.status).toBe(301);
    expect(redirect.headers.location).toBe(`https://${build.build_id}.${DOMAIN}/web?x=1`);
    expect((await get(httpPort, "example.org")).status).toBe(421);
    expect((await get(httpPort, "127.0.0.1")).status).toBe(421);
  });

  it("refuses the TLS handshake for a name outside the domain: no certificate is shown for it", async () => {
    const error = await new Promise<Error>((resolve) => {
      const socket = tls.connect({ host: "127.0.0.1", port: httpsPort, servername: "example.org", ca: certificate });
      socket.on("secureConnect", () => resolve(new Error("connected")));
      socket.on("error", resolve);
    });
    expect(error.message).not.toBe("connected");
    expect(error.message).toMatch(/alert|handshake|unrecognized name/i);
  });
});
