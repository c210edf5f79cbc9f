import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { NGINX_TEMP_FOLDERS, renderMainConfig } from "../lib/gateway/nginx-config";
import { type Gateway, requestThrough, startGateway } from "../tests/support/gateway";
import { findNginx } from "../tests/support/nginx";
import { freePort, stopProcessGroup } from "../tools/processes";
import { type LoadResult, measureLoad } from "./support/load";
import { makeDatabase, projectRoot, startApp } from "./support/servers";

/**
 * The previews' gateway (`npm run gateway`) against the engine's own floor: one small page from a build's
 * preview, reached (a) directly on its port, (b) through a plain nginx `server` block that proxies every request to
 * that port (no lookup), (c) through the gateway, which asks the app where the name leads (auth_request, each answer
 * kept 1 s) before proxying. Both nginx run with the same main configuration, workers and proxy headers, and both
 * keep their connections to the preview open (keepalive in a named upstream; the gateway's is named through a map
 * from the resolver's ip:port). Rounds take turns, and the ratio is the median of each round's gateway/plain req/s.
 *
 * And a private preview (preview_access: users) through the gateway: (d) a visitor admitted by the gateway's cookie
 * (from a share link), whose answers nginx keeps 1 s per Host and cookie, against the public preview of (c); (e) an
 * automated test's requests with X-Preview-Bypass, which nginx never answers from its cache: each asks the app.
 */
export interface GatewayResult {
  rounds: number;
  direct: LoadResult;
  plainNginx: LoadResult;
  gateway: LoadResult;
  /** Gateway req/s over plain nginx req/s, the median of the rounds' ratios. */
  ratioToPlainNginx: number;
  /** Gateway req/s over the preview's own req/s, the median of the rounds' ratios. */
  ratioToDirect: number;
  /** What the gateway adds to the preview reached directly (ms), at p50 and p99. */
  addedLatencyP50Ms: number;
  addedLatencyP99Ms: number;
  /** A private preview, through the gateway with an admitted visitor's cookie (answers kept per cookie). */
  privateAdmitted: LoadResult;
  /** Private-with-cookie req/s over public req/s through the gateway, the median of the rounds' ratios. */
  privateRatioToPublic: number;
  /** A private preview with X-Preview-Bypass on every request: never cached, every request asks the app. */
  privateBypass: LoadResult;
  /** What plain nginx adds, for comparison. */
  plainAddedLatencyP50Ms: number;
  plainAddedLatencyP99Ms: number;
  /** From the first visit of the sleeping preview (answered by the waking page) to its first 200 through the gateway. */
  wakeToFirstByteMs: number[];
}

const DOMAIN = "preview.localhost";
const BYPASS_SECRET = "bench-bypass-secret-0123456789abcdef";

export async function measureGateway(settings: {
  connections: number;
  durationSeconds: number;
  warmupSeconds: number;
  rounds: number;
}): Promise<GatewayResult> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "bench-gateway-"));
  fs.chmodSync(root, 0o755);
  const { dataDir, databaseFile } = makeDatabase();
  const gatewayPort = await freePort();
  const repository = path.join(root, "repo");
  fs.mkdirSync(path.join(repository, "addons", "hello"), { recursive: true });
  fs.writeFileSync(path.join(repository, "addons", "hello", "manifest.json"), "{}");
  for (const args of [
    ["init", "--quiet", "-b", "main"],
    ["add", "."],
    ["commit", "--quiet", "-m", "bench"],
  ])
    execFileSync("git", ["-c", "user.name=Bench", "-c", "user.email=bench@example.com", ...args], {
      cwd: repository,
      stdio: "ignore",
    });
  const ports = 45000 + Math.floor(Math.random() * 100) * 20;
  const configFile = path.join(root, "builds.config.yaml");
  fs.writeFileSync(
    configFile,
    `builds_root: ${path.join(root, "builds")}
ports: { start: ${ports}, end: ${ports + 19} }
gateway: { domain: ${DOMAIN}, port: ${gatewayPort}, wakes_per_hour: 100 }
runtime:
  driver: process
  run_as_uids: { start: ${1_940_000_000 + ports}, end: ${1_940_000_000 + ports + 19} }
  start: exec node ${path.join(projectRoot, "bench", "servers", "node-http.mjs")} $PORT '{"preview":"hello"}'
repositories:
  - { alias: demo, url: ${repository}, default_ref: main, modules_path: addons, module_manifest: manifest.json }
  - { alias: private, url: ${repository}, default_ref: main, modules_path: addons, module_manifest: manifest.json, preview_access: users, preview_bypass_secret_env: BENCH_PREVIEW_BYPASS }
`,
  );
  const env = { BUILDS_CONFIG: configFile, BENCH_PREVIEW_BYPASS: BYPASS_SECRET };
  const app = await startApp({ databaseUrl: `file:${databaseFile}`, env });
  let gateway: Gateway | undefined;
  let plain: { port: number; stop(): Promise<void> } | undefined;
  let build: { buildId: string; authorization: string } | undefined;
  let privateBuild: { buildId: string; authorization: string } | undefined;
  try {
    build = await runOneBuild(app.baseUrl);
    privateBuild = await runOneBuild(app.baseUrl, "private");
    const { buildId, authorization } = build;
    const resolved = await fetch(`${app.baseUrl}/gateway/resolve`, {
      headers: { "X-Gateway-Host": `${buildId}.${DOMAIN}:${gatewayPort}` },
    });
    const previewPort = resolved.headers.get("x-gateway-upstream")!.split(":")[1];
    gateway = await startGateway({
      port: gatewayPort,
      appUrl: app.baseUrl,
      env: { ...env, DATABASE_URL: `file:${databaseFile}` },
      dataDir,
    });
    plain = await startPlainNginx(Number(previewPort));
    const host = `${buildId}.${DOMAIN}:${gatewayPort}`;
    const check = await requestThrough(gatewayPort, { host });
    if (check.body !== '{"preview":"hello"}') throw new Error(`the gateway answered ${check.status}: ${check.body}`);
    const privateHost = `${privateBuild.buildId}.${DOMAIN}:${gatewayPort}`;
    const cookie = await shareCookie(app.baseUrl, privateBuild, gatewayPort, privateHost);
    const targets = [
      { name: "direct", url: `http://127.0.0.1:${previewPort}/`, headers: {} as Record<string, string> },
      { name: "plain", url: `http://127.0.0.1:${plain.port}/`, headers: { Host: host } },
      { name: "gateway", url: `http://127.0.0.1:${gatewayPort}/`, headers: { Host: host } },
      { name: "private", url: `http://127.0.0.1:${gatewayPort}/`, headers: { Host: privateHost, Cookie: cookie } },
      {
        name: "bypass",
        url: `http://127.0.0.1:${gatewayPort}/`,
        headers: { Host: privateHost, "X-Preview-Bypass": BYPASS_SECRET },
      },
    ];
    for (const target of targets.slice(3)) {
      const answer = await requestThrough(gatewayPort, { host: privateHost, headers: target.headers });
      if (answer.body !== '{"preview":"hello"}') throw new Error(`${target.name} answered ${answer.status}`);
    }
    const results: Record<string, LoadResult[]> = { direct: [], plain: [], gateway: [], private: [], bypass: [] };
    for (const target of targets)
      await measureLoad(target.url, {
        connections: settings.connections,
        durationSeconds: settings.warmupSeconds,
        warmupSeconds: 0,
        headers: target.headers,
      });
    for (let round = 0; round < settings.rounds; round++) {
      // The two nginx take turns being first.
      // The bypass round goes last and is followed by a pause: every one of its requests asks the app, whose backlog
      // would otherwise still be answering when the next target starts.
      const order = round % 2 === 0 ? [0, 1, 2, 3, 4] : [0, 3, 2, 1, 4];
      for (const index of order) {
        const target = targets[index];
        const result = await measureLoad(target.url, {
          connections: settings.connections,
          durationSeconds: settings.durationSeconds,
          warmupSeconds: 1,
          headers: target.headers,
        });
        if (result.non2xx > 0 || result.errors > 0)
          throw new Error(`gateway bench, ${target.name}: ${result.errors} errors, ${result.non2xx} non-2xx answers`);
        results[target.name].push(result);
        if (target.name === "bypass") await new Promise((resolve) => setTimeout(resolve, 5_000));
        console.error(
          `  gateway round ${round + 1} ${target.name}: ${Math.round(result.requestsPerSecond)} req/s, p50 ${result.latencyP50Ms} ms, p99 ${result.latencyP99Ms} ms`,
        );
      }
    }
    const wakeToFirstByteMs: number[] = [];
    for (let sample = 0; sample < 3; sample++)
      wakeToFirstByteMs.push(await measureWake(app.baseUrl, authorization, buildId, gatewayPort, host));
    console.error(`  wake on visit, visit to first byte: ${wakeToFirstByteMs.join(", ")} ms`);
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)];
    const summary = (rounds: LoadResult[]): LoadResult => ({
      ...rounds[0],
      requestsPerSecond: Math.round(median(rounds.map((r) => r.requestsPerSecond))),
      latencyP50Ms: median(rounds.map((r) => r.latencyP50Ms)),
      latencyP99Ms: median(rounds.map((r) => r.latencyP99Ms)),
    });
    const [direct, plainNginx, viaGateway, privateAdmitted, privateBypass] = [
      results.direct,
      results.plain,
      results.gateway,
      results.private,
      results.bypass,
    ].map(summary);
    const round2 = (value: number) => Number(value.toFixed(2));
    // Each round's difference to the direct figure of the same round, then the median: the load drifts between rounds.
    const added = (rounds: LoadResult[], figure: (result: LoadResult) => number) =>
      round2(median(rounds.map((result, index) => figure(result) - figure(results.direct[index]))));
    return {
      rounds: settings.rounds,
      direct,
      plainNginx,
      gateway: viaGateway,
      ratioToPlainNginx: round2(
        median(results.gateway.map((r, index) => r.requestsPerSecond / results.plain[index].requestsPerSecond)),
      ),
      ratioToDirect: round2(
        median(results.gateway.map((r, index) => r.requestsPerSecond / results.direct[index].requestsPerSecond)),
      ),
      privateAdmitted,
      privateRatioToPublic: round2(
        median(results.private.map((r, index) => r.requestsPerSecond / results.gateway[index].requestsPerSecond)),
      ),
      privateBypass,
      wakeToFirstByteMs,
      addedLatencyP50Ms: added(results.gateway, (r) => r.latencyP50Ms),
      addedLatencyP99Ms: added(results.gateway, (r) => r.latencyP99Ms),
      plainAddedLatencyP50Ms: added(results.plain, (r) => r.latencyP50Ms),
      plainAddedLatencyP99Ms: added(results.plain, (r) => r.latencyP99Ms),
    };
  } finally {
    await gateway?.stop();
    await plain?.stop();
    // The preview runs as a build user in a process group of its own: it ends with its build, not with the app.
    for (const one of [build, privateBuild])
      if (one) await destroyBuild(app.baseUrl, one).catch((error) => console.error("gateway bench:", error));
    await app.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(root, { recursive: true, force: true });
  }
}

/**
 * Puts the build to sleep, waits out the gateway's kept answer, then visits it: the time from that first visit
 * (answered at once by the waking page) to the first answer of the preview itself at the same name.
 */
async function measureWake(
  baseUrl: string,
  authorization: string,
  buildId: string,
  gatewayPort: number,
  host: string,
): Promise<number> {
  const slept = await fetch(`${baseUrl}/builds/${buildId}/sleep`, {
    method: "POST",
    headers: { Authorization: authorization },
  });
  if (slept.status !== 200) throw new Error(`sleep answered ${slept.status}: ${await slept.text()}`);
  // nginx keeps the "running" answer 1 s counted in whole seconds of its clock: under 2 s.
  await new Promise((resolve) => setTimeout(resolve, 2_500));
  const visited = Date.now();
  const first = await requestThrough(gatewayPort, { host });
  if (first.status !== 503) throw new Error(`the first visit of the sleeping preview answered ${first.status}`);
  for (;;) {
    const answer = await requestThrough(gatewayPort, { host });
    if (answer.status === 200) return Date.now() - visited;
    if (Date.now() - visited > 120_000) throw new Error("the preview did not wake within 2 minutes");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function destroyBuild(baseUrl: string, build: { buildId: string; authorization: string }): Promise<void> {
  await fetch(`${baseUrl}/builds/${build.buildId}`, {
    method: "DELETE",
    headers: { Authorization: build.authorization },
  });
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const { status } = (await (
      await fetch(`${baseUrl}/builds/${build.buildId}`, { headers: { Authorization: build.authorization } })
    ).json()) as { status: string };
    if (status === "destroyed") return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`build ${build.buildId} was not destroyed within 30 s`);
}

/** A share link of the private build, opened through the gateway: the gateway's cookie it sets, as `name=value`. */
async function shareCookie(
  baseUrl: string,
  build: { buildId: string; authorization: string },
  gatewayPort: number,
  host: string,
): Promise<string> {
  // On the build's own name, which the bench asks for (a branch's build shares its branch's name by default).
  const shared = await fetch(`${baseUrl}/builds/${build.buildId}/share`, {
    method: "POST",
    headers: { Authorization: build.authorization, "Content-Type": "application/json" },
    body: JSON.stringify({ scope: "build" }),
  });
  if (shared.status !== 201) throw new Error(`POST /builds/{id}/share answered ${shared.status}`);
  const { url } = (await shared.json()) as { url: string };
  const opened = await requestThrough(gatewayPort, { host, path: new URL(url).pathname });
  const line = (opened.headers["set-cookie"] ?? []).find((cookie) => cookie.startsWith("preview-access="));
  if (!line) throw new Error(`the share link answered ${opened.status} without the gateway's cookie`);
  return line.split(";")[0];
}

/** Registers a user, starts one build of module hello and waits until its preview runs; returns its id. */
async function runOneBuild(baseUrl: string, repository = "demo"): Promise<{ buildId: string; authorization: string }> {
  const email = `gateway-bench-${repository}-${Date.now()}@example.com`;
  const password = "a long bench password";
  await fetch(`${baseUrl}/users/`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ email, password }),
  });
  const token = await fetch(`${baseUrl}/users/token`, {
    method: "POST",
    body: new URLSearchParams({ username: email, password }),
  });
  const { access_token } = (await token.json()) as { access_token: string };
  const created = await fetch(`${baseUrl}/builds`, {
    method: "POST",
    headers: { Authorization: `Bearer ${access_token}`, "Content-Type": "application/json" },
    body: JSON.stringify({ repositories: [{ repository }], modules: ["hello"] }),
  });
  if (created.status !== 202) throw new Error(`POST /builds answered ${created.status}: ${await created.text()}`);
  const { build_id } = (await created.json()) as { build_id: string };
  const deadline = Date.now() + 60_000;
  for (;;) {
    // As its owner: a private preview's build is hidden from anyone else.
    const build = (await (
      await fetch(`${baseUrl}/builds/${build_id}`, { headers: { Authorization: `Bearer ${access_token}` } })
    ).json()) as {
      status: string;
      failure_message: string | null;
    };
    if (build.status === "running") return { buildId: build_id, authorization: `Bearer ${access_token}` };
    if (
      !["queued", "checking_out", "installing", "testing", "starting"].includes(build.status) ||
      Date.now() > deadline
    )
      throw new Error(`the gateway bench's build ended ${build.status}: ${build.failure_message}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** nginx with one static server block proxying everything to the preview's port: the floor of any proxy. */
async function startPlainNginx(previewPort: number): Promise<{ port: number; stop(): Promise<void> }> {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), "bench-plain-nginx-"));
  for (const name of NGINX_TEMP_FOLDERS) fs.mkdirSync(path.join(folder, "temp", name), { recursive: true });
  const port = await freePort();
  const site = path.join(folder, "plain.conf");
  fs.writeFileSync(
    site,
    `upstream preview {
    server 127.0.0.1:${previewPort} max_fails=0;
    keepalive 32;
    keepalive_timeout 4s;
}
server {
    listen 127.0.0.1:${port};
    location / {
        proxy_pass http://preview;
        proxy_http_version 1.1;
        proxy_set_header Host $http_host;
        proxy_set_header Upgrade $http_upgrade;
        proxy_set_header Connection "";
        proxy_set_header X-Forwarded-Host $http_host;
        proxy_set_header X-Forwarded-Proto http;
        proxy_set_header X-Forwarded-For $remote_addr;
        proxy_set_header X-Forwarded-Port "";
        proxy_set_header X-Real-IP $remote_addr;
        proxy_set_header Forwarded "";
    }
}
`,
  );
  const user = process.getuid?.() === 0 ? os.userInfo().username : undefined;
  fs.writeFileSync(path.join(folder, "nginx.conf"), renderMainConfig({ folder, site, user }));
  const child = spawn(
    findNginx(),
    ["-p", folder, "-c", path.join(folder, "nginx.conf"), "-e", path.join(folder, "error.log")],
    {
      stdio: "ignore",
      detached: true,
    },
  );
  const deadline = Date.now() + 15_000;
  while (
    (await fetch(`http://127.0.0.1:${port}/`).then(
      () => true,
      () => false,
    )) === false
  ) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error("the plain nginx did not start");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    port,
    stop: async () => {
      await stopProcessGroup(child);
      fs.rmSync(folder, { recursive: true, force: true });
    },
  };
}
