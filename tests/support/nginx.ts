import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { freePort, stopProcessGroup } from "../../tools/processes";

// Debian's nginx in front of a running app, with the shipped site configuration (deploy/nginx/bcv-rates.conf)
// templated into a temp folder: the app's port, a free loopback port, a cache folder of its own. Shared by the
// integration test and the benchmark; loads no vitest.

const projectRoot = path.resolve(import.meta.dirname, "..", "..");
export const SITE_CONFIG = path.join(projectRoot, "deploy", "nginx", "bcv-rates.conf");

export interface NginxServer {
  baseUrl: string;
  folder: string;
  /** The master's pid, which is also the process group of its workers. */
  pid: number;
  stop(): Promise<void>;
}

/** nginx's executable: NGINX_PATH, Debian's /usr/sbin/nginx, or nginx on PATH. Throws, naming the fix, when none. */
export function findNginx(): string {
  const candidates = [
    process.env.NGINX_PATH,
    "/usr/sbin/nginx",
    ...(process.env.PATH ?? "").split(":").map((dir) => path.join(dir, "nginx")),
  ];
  const found = candidates.find((candidate) => candidate && fs.existsSync(candidate));
  if (!found)
    throw new Error("nginx is not installed: `apt-get install -y nginx` (CI's .ci/run does), or set NGINX_PATH.");
  return found;
}

/** The shipped site configuration with the marked lines pointed at this run's ports and folders. */
export function templateSiteConfig(options: {
  appPorts: number[];
  listenPort: number;
  cacheFolder: string;
  hopPort: number;
}): string {
  // Each marked line must exist as often as the file has it (the compressing hop's port: its listen and its
  // upstream), or the test would run some other configuration than the shipped one.
  const replacements: [RegExp, string, number][] = [
    [/proxy_cache_path \/var\/cache\/nginx\/bcv-rates /, `proxy_cache_path ${options.cacheFolder} `, 1],
    // Several instances: one server line each, as the comment below that line in the file shows.
    [
      /server 127\.0\.0\.1:3000;/,
      options.appPorts.length === 1
        ? `server 127.0.0.1:${options.appPorts[0]};`
        : options.appPorts.map((port) => `server 127.0.0.1:${port} max_fails=1 fail_timeout=10s;`).join("\n    "),
      1,
    ],
    [/listen 80;/, `listen 127.0.0.1:${options.listenPort};`, 1],
    [/127\.0\.0\.1:8081;/, `127.0.0.1:${options.hopPort};`, 2],
  ];
  let text = fs.readFileSync(SITE_CONFIG, "utf8");
  for (const [pattern, value, expected] of replacements) {
    const global = new RegExp(pattern.source, "g");
    const matches = text.match(global)?.length ?? 0;
    if (matches !== expected)
      throw new Error(`${SITE_CONFIG}: expected ${expected} line(s) matching ${pattern}, found ${matches}`);
    text = text.replace(global, value);
  }
  return text;
}

/** nginx in front of one app (`appPort`) or several instances of it (`appPorts`). */
export async function startNginx(options: {
  appPort?: number;
  appPorts?: number[];
  workers?: number | "auto";
  accessLog?: boolean;
}): Promise<NginxServer> {
  const appPorts = options.appPorts ?? [options.appPort!];
  const executable = findNginx();
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), "nginx-"));
  const listenPort = await freePort();
  const hopPort = await freePort();
  const site = path.join(folder, "bcv-rates.conf");
  fs.writeFileSync(
    site,
    templateSiteConfig({ appPorts, listenPort, cacheFolder: path.join(folder, "cache"), hopPort }),
  );
  const temp = (name: string) => path.join(folder, "temp", name);
  for (const name of ["body", "proxy", "fastcgi", "uwsgi", "scgi"]) fs.mkdirSync(temp(name), { recursive: true });
  // As root, nginx would run its workers as `nobody`, who cannot write these folders: keep our own user.
  const user = process.getuid?.() === 0 ? `user ${os.userInfo().username};` : "";
  fs.writeFileSync(
    path.join(folder, "nginx.conf"),
    `${user}
daemon off;
pid ${folder}/nginx.pid;
worker_processes ${options.workers ?? 1};
error_log ${folder}/error.log warn;
events { worker_connections 4096; }
http {
  client_body_temp_path ${temp("body")};
  proxy_temp_path ${temp("proxy")};
  fastcgi_temp_path ${temp("fastcgi")};
  uwsgi_temp_path ${temp("uwsgi")};
  scgi_temp_path ${temp("scgi")};
  access_log ${options.accessLog ? `${folder}/access.log` : "off"};
  include ${site};
}
`,
  );
  const child: ChildProcess = spawn(
    executable,
    ["-p", folder, "-c", path.join(folder, "nginx.conf"), "-e", path.join(folder, "error.log")],
    {
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    },
  );
  const output: string[] = [];
  child.stdout?.on("data", (chunk) => output.push(String(chunk)));
  child.stderr?.on("data", (chunk) => output.push(String(chunk)));
  const baseUrl = `http://127.0.0.1:${listenPort}`;
  const errorLog = () =>
    fs.existsSync(path.join(folder, "error.log")) ? fs.readFileSync(path.join(folder, "error.log"), "utf8") : "";
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`nginx exited with code ${child.exitCode}:\n${output.join("")}${errorLog()}`);
    try {
      await (await fetch(`${baseUrl}/__nginx_ready`)).arrayBuffer();
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`nginx did not answer within 15 s:\n${output.join("")}${errorLog()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return {
    baseUrl,
    folder,
    pid: child.pid!,
    stop: async () => {
      await stopProcessGroup(child);
      fs.rmSync(folder, { recursive: true, force: true });
    },
  };
}
