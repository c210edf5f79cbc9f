import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { NGINX_TEMP_FOLDERS, renderGatewayConfig, renderMainConfig } from "@/lib/gateway/nginx-config";
import { productionGatewayConfig } from "@/lib/gateway/production";

const projectRoot = path.resolve(import.meta.dirname, "..", "..");

describe("the gateway's nginx configuration", () => {
  it("is what deploy/nginx/previews.conf ships (npm run gateway -- --print-production-config)", () => {
    expect(fs.readFileSync(path.join(projectRoot, "deploy", "nginx", "previews.conf"), "utf8")).toBe(
      productionGatewayConfig(),
    );
  });

  it("passes nginx -t, with TLS and without", () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), "gateway-config-"));
    try {
      for (const name of NGINX_TEMP_FOLDERS) fs.mkdirSync(path.join(folder, "temp", name), { recursive: true });
      execFileSync(
        "openssl",
        [
          "req",
          "-x509",
          "-newkey",
          "rsa:2048",
          "-nodes",
          "-days",
          "1",
          "-subj",
          "/CN=*.preview.example.com",
          "-keyout",
          path.join(folder, "key.pem"),
          "-out",
          path.join(folder, "cert.pem"),
        ],
        { stdio: "ignore" },
      );
      const production = productionGatewayConfig()
        .replaceAll("/etc/letsencrypt/live/preview.example.com/fullchain.pem", path.join(folder, "cert.pem"))
        .replaceAll("/etc/letsencrypt/live/preview.example.com/privkey.pem", path.join(folder, "key.pem"))
        .replaceAll("/var/cache/nginx/previews", path.join(folder, "cache"))
        .replaceAll("/var/log/nginx/previews.access.log", path.join(folder, "previews.access.log"))
        .replace(/listen 443 /g, "listen 127.0.0.1:18443 ")
        .replace(/listen \[::\]:443 /g, "listen [::1]:18443 ")
        .replace(/listen 80( default_server)?;/g, "listen 127.0.0.1:18080$1;")
        .replace(/listen \[::\]:80( default_server)?;/g, "listen [::1]:18080$1;");
      const plain = renderGatewayConfig({
        domain: "preview.localhost",
        listen: ["127.0.0.1:18081"],
        appServers: ["127.0.0.1:3000"],
        cacheFolder: path.join(folder, "cache2"),
        maxBodySize: "128m",
        forwardedProto: "http",
        cookieName: "preview-access",
        accessLog: path.join(folder, "plain.access.log"),
        keptUpstreams: ["127.0.0.1:18000", "127.0.0.1:18001", "[::1]:18000"],
      });
      for (const [name, site] of [
        ["production", production],
        ["plain", plain],
      ]) {
        fs.writeFileSync(path.join(folder, `${name}.conf`), site);
        fs.writeFileSync(
          path.join(folder, "nginx.conf"),
          renderMainConfig({ folder, site: path.join(folder, `${name}.conf`) }),
        );
        const output = execFileSync(
          "/usr/sbin/nginx",
          ["-t", "-p", folder, "-c", path.join(folder, "nginx.conf"), "-e", path.join(folder, "error.log")],
          {
            encoding: "utf8",
            stdio: ["ignore", "pipe", "pipe"],
          },
        );
        expect(output).toBe("");
      }
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it("never proxies to anything but the app's answer, and refuses other hosts", () => {
    const site = productionGatewayConfig();
    expect(site).not.toMatch(/^\s*resolver\b/m);
    const proxied = [...site.matchAll(/proxy_pass ([^;]+);/g)].map((match) => match[1]);
    expect(new Set(proxied)).toEqual(
      new Set(["http://preview_gateway_app/gateway/resolve", "http://$preview_pass", "http://preview_gateway_app"]),
    );
    expect(site).toContain("auth_request_set $preview_upstream $upstream_http_x_gateway_upstream;");
    expect(site).toContain("map $preview_upstream $preview_pass {\n    default $preview_upstream;\n}");
    expect(site).toContain("ssl_reject_handshake on;");
    expect(site).toContain("return 301 https://$host$request_uri;");
  });
});
