/**
 * `npm run gateway -- --listen ADDRESS:PORT [--app URL] [--max-body SIZE]`: the previews' front door for one
 * machine, demos and tests. Debian's nginx in the foreground, its configuration (lib/gateway/nginx-config.ts)
 * written into the data folder's `gateway/`, asking the app at 127.0.0.1:PORT (the environment `npm start` reads:
 * DATABASE_URL, BUILDS_CONFIG, PORT, DATA_DIR) unless --app names another address. Ends with the command (Ctrl-C,
 * SIGTERM), and ends the command when nginx ends.
 *
 * `npm run gateway -- --print-production-config` prints deploy/nginx/previews.conf: the same site with TLS and a
 * redirect from HTTP, for preview.example.com; with `--preview-address IP` (once per builder host) and
 * `--ports START-END`, nginx keeps connections to the previews at those addresses.
 */
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { InvalidBuildsConfigError, loadBuildsConfig } from "../lib/builds/config";
import {
  gatewayCookieName,
  NGINX_TEMP_FOLDERS,
  renderGatewayConfig,
  renderMainConfig,
} from "../lib/gateway/nginx-config";
import { productionGatewayConfig } from "../lib/gateway/production";
import { getEnv, InvalidEnvironmentError } from "../lib/server/env";

class UsageError extends Error {}

/** `127.0.0.1:8080`, `[::1]:8080` or `8080` (every address): nginx's listen parameter. */
function parseListen(value: string): string {
  const match = /^(?:(\d{1,3}(?:\.\d{1,3}){3}|\[[0-9a-fA-F:.]+\]|\*):)?(\d{1,5})$/.exec(value);
  const port = match ? Number(match[2]) : 0;
  if (!match || port < 1 || port > 65535)
    throw new UsageError(`--listen ${value}: must be ADDRESS:PORT, such as 127.0.0.1:8080 or [::1]:8080`);
  return value;
}

/** The app's `host:port` for nginx's upstream, from an http URL without a path. */
function parseApp(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`--app ${value}: must be the app's http address, such as http://127.0.0.1:3000`);
  }
  if (url.protocol !== "http:" || url.pathname !== "/" || url.search || url.username)
    throw new UsageError(`--app ${value}: must be an http origin without a path, such as http://127.0.0.1:3000`);
  return `${url.hostname}:${url.port || 80}`;
}

function findNginx(): string {
  for (const candidate of ["/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/bin/nginx"])
    if (fs.existsSync(candidate)) return candidate;
  throw new UsageError("nginx is not installed: `apt-get install -y nginx` (Debian's 1.22 or later).");
}

/**
 * The user nginx's workers run as when the gateway starts as root: Debian's www-data, as the distribution's nginx
 * does (nginx's own default, nobody, where there is none). The master keeps root for what only it touches: the
 * listening sockets, the configuration, the certificates, the logs and the pid file.
 */
function unprivilegedUser(): { name: string; uid: number; gid: number } {
  for (const name of ["www-data", "nobody"]) {
    try {
      const [uid, gid] = ["-u", "-g"].map((flag) => Number(execFileSync("id", [flag, name], { encoding: "utf8" })));
      if (uid > 0) return { name, uid, gid };
    } catch {
      // No such user: the next.
    }
  }
  throw new UsageError("no unprivileged user (www-data or nobody) for nginx's workers: create www-data.");
}

/** Every `ip:port` a preview of this host may listen on: the addresses nginx keeps connections to. */
function previewAddresses(address: string, ports: { start: number; end: number }): string[] {
  const host = address.includes(":") ? `[${address}]` : address;
  return Array.from({ length: ports.end - ports.start + 1 }, (_, index) => `${host}:${ports.start + index}`);
}

async function main() {
  const { values } = parseArgs({
    options: {
      listen: { type: "string" },
      app: { type: "string" },
      "max-body": { type: "string", default: "128m" },
      "print-production-config": { type: "boolean", default: false },
      "preview-address": { type: "string", multiple: true, default: [] },
      ports: { type: "string", default: "18000-19999" },
    },
  });
  if (values["print-production-config"]) {
    const ports = /^(\d{1,5})-(\d{1,5})$/.exec(values.ports!);
    if (!ports || Number(ports[1]) > Number(ports[2]) || Number(ports[2]) > 65535)
      throw new UsageError(`--ports ${values.ports}: must be START-END, such as 18000-19999`);
    const kept = values["preview-address"]!.flatMap((address) => {
      if (net.isIP(address) === 0) throw new UsageError(`--preview-address ${address}: must be an IP address`);
      return previewAddresses(address, { start: Number(ports[1]), end: Number(ports[2]) });
    });
    process.stdout.write(productionGatewayConfig(undefined, kept));
    return;
  }
  if (!values.listen) throw new UsageError("--listen ADDRESS:PORT is required, such as --listen 127.0.0.1:8080");
  const listen = parseListen(values.listen);
  if (!/^\d+[km]?$/.test(values["max-body"]!))
    throw new UsageError(`--max-body ${values["max-body"]}: must be an nginx size, such as 128m`);
  const env = getEnv();
  const config = loadBuildsConfig(env.BUILDS_CONFIG);
  if (!config.gateway)
    throw new UsageError(
      `${env.BUILDS_CONFIG} has no gateway: add one, such as gateway: { domain: preview.localhost, port: 8080 }`,
    );
  const app = parseApp(values.app ?? `http://127.0.0.1:${env.PORT}`);
  const folder = path.join(env.DATA_DIR, "gateway");
  fs.mkdirSync(folder, { recursive: true });
  const workers = process.getuid?.() === 0 ? unprivilegedUser() : undefined;
  // What the workers write (the resolver's kept answers, bodies spooled to disk) is theirs and disposable: as root,
  // in a folder of their own outside the data folder, which they need not be able to enter.
  const work = workers ? fs.mkdtempSync(path.join(os.tmpdir(), "preview-gateway-")) : folder;
  if (workers) fs.chownSync(work, workers.uid, workers.gid);
  for (const name of NGINX_TEMP_FOLDERS) fs.mkdirSync(path.join(work, "temp", name), { recursive: true });
  const site = path.join(folder, "previews.conf");
  fs.writeFileSync(
    site,
    renderGatewayConfig({
      domain: config.gateway.domain,
      listen: [listen],
      appServers: [app],
      cacheFolder: path.join(work, "cache"),
      maxBodySize: values["max-body"]!,
      forwardedProto: config.gateway.scheme,
      cookieName: gatewayCookieName(config.gateway.scheme),
      accessLog: path.join(folder, "access.log"),
      keptUpstreams: previewAddresses(config.preview_address, config.ports),
    }),
  );
  const main = path.join(folder, "nginx.conf");
  fs.writeFileSync(main, renderMainConfig({ folder, site, user: workers?.name, tempFolder: path.join(work, "temp") }));
  const nginx = spawn(findNginx(), ["-p", folder, "-c", main, "-e", path.join(folder, "error.log")], {
    stdio: "inherit",
  });
  const port = Number(/(\d+)$/.exec(listen)![1]);
  console.log(
    `Gateway: the previews under ${config.gateway.domain} on ${listen}, asking the app at ${app}; configuration in ${folder}` +
      (port === config.gateway.port
        ? ""
        : `\nNote: gateway.port is ${config.gateway.port}: links say that port, so something in front must forward it to ${port}.`),
  );
  for (const signal of ["SIGINT", "SIGTERM"] as const)
    process.on(signal, () => {
      nginx.kill("SIGTERM");
    });
  nginx.on("exit", (code, signal) => {
    if (work !== folder) fs.rmSync(work, { recursive: true, force: true });
    process.exit(code ?? (signal === "SIGTERM" ? 0 : 1));
  });
}

main().catch((error) => {
  if (
    error instanceof UsageError ||
    error instanceof InvalidBuildsConfigError ||
    error instanceof InvalidEnvironmentError
  ) {
    console.error(error.message);
    process.exit(2);
  }
  throw error;
});
