import { type ChildProcess, execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { spawnBuiltServer } from "../../tools/built-server";
import { freePort, stopProcessGroup } from "../../tools/processes";
import { type Gateway, ODOO_LIKE_PREVIEW, startGateway } from "../support/gateway";
import { chromiumArgs, chromiumExecutable } from "./browser";

/**
 * Two previews open in one browser keep their own sessions: each is a name of its own behind the
 * gateway, so each gets its own `session_id` cookie, as two Odoo previews would. On two ports of one host they
 * would share one cookie jar (RFC 6265 §8.5) and the second sign-in would sign the first out.
 *
 * This spec runs an app of its own with a gateway (the run's app has none): the built app on a fresh database, two
 * builds of the stand-in Odoo preview, and `npm run gateway` on loopback. Chromium maps every *.preview.localhost
 * name to 127.0.0.1, as a wildcard DNS record would.
 */
const projectRoot = path.resolve(import.meta.dirname, "..", "..");
const bin = (name: string) => path.join(projectRoot, "node_modules", ".bin", name);
const DOMAIN = "preview.localhost";

// One app, gateway and pair of builds for both tests: a worker each would build them twice.
test.describe.configure({ mode: "serial" });

test.use({
  launchOptions: {
    executablePath: chromiumExecutable,
    args: [...chromiumArgs, `--host-resolver-rules=MAP *.${DOMAIN} 127.0.0.1`],
  },
});

let tempDir: string;
let app: ChildProcess | undefined;
let gateway: Gateway | undefined;
let gatewayPort: number;
let baseUrl: string;
let authorization: string;
const buildIds: string[] = [];

test.beforeAll(async () => {
  test.setTimeout(240_000);
  tempDir = fs.mkdtempSync(path.join(os.tmpdir(), "e2e-gateway-"));
  fs.chmodSync(tempDir, 0o755);
  const repository = path.join(tempDir, "repo");
  fs.mkdirSync(path.join(repository, "modules", "alpha"), { recursive: true });
  fs.writeFileSync(path.join(repository, "modules", "alpha", "module.json"), "{}\n");
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=e2e", "-c", "user.email=e2e@example.com", ...args], { cwd: repository });
  git("init", "--quiet", "-b", "main");
  git("add", ".");
  git("commit", "--quiet", "-m", "alpha");
  gatewayPort = await freePort();
  const offset = Math.floor(Math.random() * 40) * 20;
  const ports = { start: 64000 + offset, end: 64000 + offset + 19 };
  const configFile = path.join(tempDir, "builds.config.yaml");
  fs.writeFileSync(
    configFile,
    `builds_root: ${JSON.stringify(path.join(tempDir, "builds"))}
ports: { start: ${ports.start}, end: ${ports.end} }
gateway: { domain: ${DOMAIN}, port: ${gatewayPort} }
runtime:
  driver: process
  run_as_uids: { start: ${1_926_000_000 + offset}, end: ${1_926_000_000 + offset + 19} }
  start: ${ODOO_LIKE_PREVIEW}
  healthcheck: { path: /web/login, timeout_seconds: 60 }
repositories:
  - { alias: demo, url: ${JSON.stringify(repository)}, default_ref: main, modules_path: modules, module_manifest: module.json }
`,
  );
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: `file:${path.join(tempDir, "data", "app.db")}`,
    BUILDS_CONFIG: configFile,
    NODE_ENV: "production" as const,
    NEXT_TELEMETRY_DISABLED: "1",
    NEXT_MANUAL_SIG_HANDLE: "true",
    RATES_FETCH_INTERVAL_SECONDS: "0",
  };
  execFileSync(bin("tsx"), ["scripts/prepare-start.ts"], { cwd: projectRoot, env, stdio: "ignore" });
  const appPort = await freePort();
  app = spawnBuiltServer({ port: appPort, env }).child;
  baseUrl = `http://127.0.0.1:${appPort}`;
  await expect
    .poll(
      () =>
        fetch(`${baseUrl}/healthz`).then(
          (r) => r.status,
          () => 0,
        ),
      { timeout: 60_000 },
    )
    .toBe(200);
  const email = "gateway-e2e@example.com";
  const password = "correct horse battery";
  await fetch(`${baseUrl}/users/`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ email, password }),
  });
  const token = await fetch(`${baseUrl}/users/token`, {
    method: "POST",
    body: new URLSearchParams({ username: email, password }),
  });
  authorization = `Bearer ${((await token.json()) as { access_token: string }).access_token}`;
  for (let index = 0; index < 2; index++) {
    const created = await fetch(`${baseUrl}/builds`, {
      method: "POST",
      headers: { Authorization: authorization, "Content-Type": "application/json" },
      body: JSON.stringify({ repositories: [{ repository: "demo" }], modules: ["alpha"] }),
    });
    expect(created.status).toBe(202);
    buildIds.push(((await created.json()) as { build_id: string }).build_id);
  }
  for (const id of buildIds)
    await expect
      .poll(async () => ((await (await fetch(`${baseUrl}/builds/${id}`)).json()) as { status: string }).status, {
        timeout: 150_000,
      })
      .toBe("running");
  gateway = await startGateway({
    port: gatewayPort,
    appUrl: baseUrl,
    env: { DATABASE_URL: env.DATABASE_URL, BUILDS_CONFIG: configFile },
    dataDir: path.join(tempDir, "data"),
  });
});

test.afterAll(async () => {
  await gateway?.stop();
  // Each preview's processes end with its build.
  for (const id of buildIds)
    await fetch(`${baseUrl}/builds/${id}`, { method: "DELETE", headers: { Authorization: authorization } });
  for (const id of buildIds)
    await expect
      .poll(async () => ((await (await fetch(`${baseUrl}/builds/${id}`)).json()) as { status: string }).status, {
        timeout: 30_000,
      })
      .toBe("destroyed");
  if (app) await stopProcessGroup(app);
  fs.rmSync(tempDir, { recursive: true, force: true });
});

test("two previews open in one browser keep their own sessions", async ({ page, context }) => {
  const [first, second] = buildIds.map((id) => `http://${id}.${DOMAIN}:${gatewayPort}`);
  const signIn = async (origin: string, login: string) => {
    await page.goto(`${origin}/web/login`);
    await page.getByLabel("Email").fill(login);
    await page.getByRole("button", { name: "Log in" }).click();
    await expect(page).toHaveURL(`${origin}/web`);
    await expect(page.getByTestId("user")).toHaveText(`Signed in as ${login}`);
  };
  await signIn(first, "ana@first.test");
  await signIn(second, "bob@second.test");
  // Back to the first preview: still signed in as before, with the cookie it set.
  await page.goto(`${first}/web`);
  await expect(page.getByRole("heading", { name: `Build ${buildIds[0]}` })).toBeVisible();
  await expect(page.getByTestId("user")).toHaveText("Signed in as ana@first.test");
  const sessions = (await context.cookies()).filter((cookie) => cookie.name === "session_id");
  expect(sessions.map((cookie) => cookie.domain).sort()).toEqual(buildIds.map((id) => `${id}.${DOMAIN}`).sort());
  expect(new Set(sessions.map((cookie) => cookie.value)).size).toBe(2);
  // A name that leads nowhere: the gateway's own page, not another preview.
  const nowhere = await page.goto(`http://nothing.${DOMAIN}:${gatewayPort}/web`);
  expect(nowhere?.status()).toBe(404);
  await expect(page.getByRole("heading", { name: "No preview here" })).toBeVisible();
});

test("a build's drawer lists its preview names with their links", async ({ page }, testInfo) => {
  const [id] = buildIds;
  for (const [width, scheme] of [
    [1440, "light"],
    [390, "dark"],
  ] as const) {
    await page.setViewportSize({ width, height: 900 });
    await page.emulateMedia({ colorScheme: scheme });
    await page.goto(`${baseUrl}/builds/${id}`);
    const drawer = page.getByRole("dialog", { name: `Build ${id.slice(0, 8)}` });
    const names = drawer.getByTestId("preview-names");
    // Each name as the full URL a visitor types, the gateway's port included.
    await expect(names.getByRole("link", { name: `http://${id}.${DOMAIN}:${gatewayPort}/` })).toHaveAttribute(
      "href",
      `http://${id}.${DOMAIN}:${gatewayPort}/`,
    );
    await expect(names.getByRole("link", { name: `http://main--demo.${DOMAIN}:${gatewayPort}/` })).toHaveAttribute(
      "href",
      `http://main--demo.${DOMAIN}:${gatewayPort}/`,
    );
    await expect(drawer.getByTestId("preview-url").getByRole("link")).toHaveAttribute(
      "href",
      `http://${id}.${DOMAIN}:${gatewayPort}/`,
    );
    await page.screenshot({ path: testInfo.outputPath(`drawer-${width}-${scheme}.png`) });
  }
});

test("a visit to a sleeping preview wakes it: the waiting page turns into the preview", async ({ page }) => {
  const id = buildIds[1];
  const slept = await fetch(`${baseUrl}/builds/${id}/sleep`, {
    method: "POST",
    headers: { Authorization: authorization },
  });
  expect(slept.status).toBe(200);
  const origin = `http://${id}.${DOMAIN}:${gatewayPort}`;
  // The gateway keeps its answer for a second: the first visits after that see it asleep.
  await expect.poll(async () => (await fetch(`${baseUrl}/builds/${id}`).then((r) => r.json())).status).toBe("sleeping");
  await page.waitForTimeout(1_500);
  const first = await page.goto(`${origin}/web/login`);
  expect(first?.status()).toBe(503);
  await expect(page.getByRole("heading", { name: "Waking this preview up" })).toBeVisible();
  // It reloads by itself until the preview answers, at the same address.
  await expect(page.getByRole("heading", { name: `Log in to build ${id}` })).toBeVisible({ timeout: 60_000 });
  expect(page.url()).toBe(`${origin}/web/login`);
});
