import { type ChildProcess, execFileSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { expect, type Page, test } from "@playwright/test";
import { spawnBuiltServer } from "../../tools/built-server";
import { freePort, stopProcessGroup } from "../../tools/processes";
import { type Gateway, ODOO_LIKE_PREVIEW, startGateway } from "../support/gateway";
import { chromiumArgs, chromiumExecutable } from "./browser";

/**
 * A private preview (`preview_access: users`) in Chromium: a visitor who is not signed in is sent to the
 * dashboard's sign-in and, once signed in, back to the page of the preview they asked for; the dashboard's
 * session cookie stays on the dashboard's host, the gateway's own cookie on the preview's name. Then the build's
 * panel: its names as full URLs, its access switched by its owner, and share links made, listed and revoked; and
 * the New build form offering the repository's branches and every module at once.
 *
 * An app of its own with a gateway (the run's app has none), as tests/e2e/gateway-sessions.spec.ts runs one; the
 * dashboard is at 127.0.0.1, the previews at *.preview.localhost, which Chromium maps to 127.0.0.1.
 */
const projectRoot = path.resolve(import.meta.dirname, "..", "..");
const bin = (name: string) => path.join(projectRoot, "node_modules", ".bin", name);
const DOMAIN = "preview.localhost";
const EMAIL = "private-e2e@example.com";
const PASSWORD = "correct horse battery";

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
let buildId: string;

test.beforeAll(async () => {
  test.setTimeout(240_000);
  tempDir = fs.mkdtempSync(path.join(os.tmpdir(), "e2e-private-"));
  fs.chmodSync(tempDir, 0o755);
  const repository = path.join(tempDir, "repo");
  fs.mkdirSync(path.join(repository, "modules", "alpha"), { recursive: true });
  fs.writeFileSync(path.join(repository, "modules", "alpha", "module.json"), "{}\n");
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=e2e", "-c", "user.email=e2e@example.com", ...args], { cwd: repository });
  git("init", "--quiet", "-b", "main");
  git("add", ".");
  git("commit", "--quiet", "-m", "alpha");
  git("branch", "feature/price-list");
  gatewayPort = await freePort();
  const appPort = await freePort();
  baseUrl = `http://127.0.0.1:${appPort}`;
  const offset = Math.floor(Math.random() * 40) * 20;
  const ports = { start: 63000 + offset, end: 63000 + offset + 19 };
  const configFile = path.join(tempDir, "builds.config.yaml");
  fs.writeFileSync(
    configFile,
    `builds_root: ${JSON.stringify(path.join(tempDir, "builds"))}
ports: { start: ${ports.start}, end: ${ports.end} }
gateway: { domain: ${DOMAIN}, port: ${gatewayPort} }
runtime:
  driver: process
  run_as_uids: { start: ${1_927_000_000 + offset}, end: ${1_927_000_000 + offset + 19} }
  start: ${ODOO_LIKE_PREVIEW}
  healthcheck: { path: /web/login, timeout_seconds: 60 }
repositories:
  - { alias: demo, url: ${JSON.stringify(repository)}, default_ref: main, modules_path: modules, module_manifest: module.json, preview_access: users }
`,
  );
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: `file:${path.join(tempDir, "data", "app.db")}`,
    BUILDS_CONFIG: configFile,
    PUBLIC_URL: baseUrl,
    NODE_ENV: "production" as const,
    NEXT_TELEMETRY_DISABLED: "1",
    NEXT_MANUAL_SIG_HANDLE: "true",
    RATES_FETCH_INTERVAL_SECONDS: "0",
  };
  execFileSync(bin("tsx"), ["scripts/prepare-start.ts"], { cwd: projectRoot, env, stdio: "ignore" });
  app = spawnBuiltServer({ port: appPort, env }).child;
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
  await fetch(`${baseUrl}/users/`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ email: EMAIL, password: PASSWORD }),
  });
  const token = await fetch(`${baseUrl}/users/token`, {
    method: "POST",
    body: new URLSearchParams({ username: EMAIL, password: PASSWORD }),
  });
  authorization = `Bearer ${((await token.json()) as { access_token: string }).access_token}`;
  const created = await fetch(`${baseUrl}/builds`, {
    method: "POST",
    headers: { Authorization: authorization, "Content-Type": "application/json" },
    body: JSON.stringify({ repositories: [{ repository: "demo" }], modules: ["alpha"] }),
  });
  expect(created.status).toBe(202);
  buildId = ((await created.json()) as { build_id: string }).build_id;
  await expect.poll(() => statusOf(buildId), { timeout: 150_000 }).toBe("running");
  gateway = await startGateway({
    port: gatewayPort,
    appUrl: baseUrl,
    env: { DATABASE_URL: env.DATABASE_URL, BUILDS_CONFIG: configFile },
    dataDir: path.join(tempDir, "data"),
  });
});

test.afterAll(async () => {
  await gateway?.stop();
  if (buildId) {
    await fetch(`${baseUrl}/builds/${buildId}`, { method: "DELETE", headers: { Authorization: authorization } });
    await expect.poll(() => statusOf(buildId), { timeout: 30_000 }).toBe("destroyed");
  }
  if (app) await stopProcessGroup(app);
  fs.rmSync(tempDir, { recursive: true, force: true });
});

/** A build's status, as a signed-in user reads it: a private build is hidden from strangers. */
async function statusOf(id: string): Promise<string> {
  const response = await fetch(`${baseUrl}/builds/${id}`, { headers: { Authorization: authorization } });
  return ((await response.json()) as { status: string }).status;
}

async function signInOnDashboard(page: Page) {
  const dialog = page.getByRole("dialog", { name: "Sign in" });
  await expect(dialog).toBeVisible();
  await dialog.getByLabel("Email").fill(EMAIL);
  await dialog.getByLabel("Password").fill(PASSWORD);
  await dialog.getByRole("button", { name: "Sign in" }).click();
}

test("a private preview sends a visitor to sign in and back to the page they asked for", async ({
  page,
  context,
}, testInfo) => {
  const preview = `http://${buildId}.${DOMAIN}:${gatewayPort}`;
  await page.goto(`${preview}/web/login?from=mail`);
  // On the dashboard, with the sign-in dialog open by itself.
  await expect(page).toHaveURL(new RegExp(`^${baseUrl}/\\?sign-in=`));
  await expect(page.getByTestId("private-preview-notice")).toHaveText(
    `The preview ${buildId} is private: sign in to open it.`,
  );
  await page.screenshot({ path: testInfo.outputPath("sign-in-1440-light.png") });
  await signInOnDashboard(page);
  // Back on the preview, at the page asked for, served by the preview itself.
  await expect(page).toHaveURL(`${preview}/web/login?from=mail`);
  await expect(page.getByRole("heading", { name: `Log in to build ${buildId}` })).toBeVisible();

  const cookies = await context.cookies();
  const gatewayCookie = cookies.find((cookie) => cookie.name === "preview-access");
  expect(gatewayCookie).toMatchObject({ domain: `${buildId}.${DOMAIN}`, httpOnly: true, sameSite: "Lax" });
  // The dashboard's session stays on the dashboard's host.
  const session = cookies.find((cookie) => cookie.name.includes("session-token"));
  expect(session?.domain).toBe("127.0.0.1");
  // The page, a script of the preview's, cannot read the gateway's cookie (HttpOnly).
  expect(await page.evaluate(() => document.cookie)).not.toContain("preview-access");

  // Signed in already: the next visit goes through without a stop at the dashboard.
  await page.goto(`${preview}/anything`);
  await expect(page).toHaveURL(`${preview}/anything`);
  const seen = JSON.parse((await page.locator("body").textContent()) ?? "{}") as { headers: Record<string, string> };
  expect(seen.headers.cookie ?? "").not.toContain("preview-access");
  expect(seen.headers.cookie ?? "").not.toContain("session-token");
});

test("a return path another site hides behind a TAB or a backslash lands on the preview's own /", async ({ page }) => {
  // Another site on loopback (every *.localhost is loopback to Chromium): where an open redirect would land.
  const elsewhere = http.createServer((_request, response) => response.end("another site"));
  await new Promise<void>((resolve) => elsewhere.listen(0, "127.0.0.1", resolve));
  const evil = `evil.localhost:${(elsewhere.address() as AddressInfo).port}`;
  try {
    const preview = `http://${buildId}.${DOMAIN}:${gatewayPort}`;
    await page.goto(`${baseUrl}/?sign-in=/gateway/ticket?name=${buildId}`);
    await signInOnDashboard(page);
    await page.waitForURL(new RegExp(`^${preview}/`));
    // Signed in: the ticket goes over the real gateway to /__gateway/admit, whose answer sends the browser back.
    for (const to of [`/\t/${evil}/pwned`, `/\\${evil}/pwned`, `/\n/${evil}/pwned`, `//${evil}/pwned`]) {
      await page.goto(`${baseUrl}/gateway/ticket?${new URLSearchParams({ name: buildId, to })}`);
      await page.waitForLoadState("load");
      expect(page.url(), JSON.stringify(to)).toBe(`${preview}/`);
    }
    // A path of the preview itself is kept.
    await page.goto(`${baseUrl}/gateway/ticket?${new URLSearchParams({ name: buildId, to: "/web/login?x=1" })}`);
    await expect(page).toHaveURL(`${preview}/web/login?x=1`);
  } finally {
    await new Promise((resolve) => elsewhere.close(resolve));
  }
});

test("the build's panel shows its access and makes, lists and revokes share links", async ({ page }, testInfo) => {
  await page.goto(`${baseUrl}/?sign-in=/gateway/ticket?name=${buildId}`);
  await signInOnDashboard(page);
  await page.waitForURL(new RegExp(`^http://${buildId}\\.`));
  for (const [width, scheme] of [
    [1440, "light"],
    [1440, "dark"],
    [390, "light"],
    [390, "dark"],
  ] as const) {
    await page.setViewportSize({ width, height: 900 });
    await page.emulateMedia({ colorScheme: scheme });
    await page.goto(`${baseUrl}/builds/${buildId}`);
    const drawer = page.getByRole("dialog", { name: `Build ${buildId.slice(0, 8)}` });
    await expect(drawer.getByTestId("preview-access")).toContainText("Signed-in users");
    const shares = drawer.getByTestId("share-links");
    await shares.getByLabel("Expires after").selectOption({ label: "1 hour" });
    // A link follows the branch unless asked to stay on the build.
    await expect(shares.getByLabel("Opens")).toHaveValue("branch");
    await shares.getByRole("button", { name: "Create link" }).click();
    const link = shares.getByTestId("new-share-link");
    await expect(link).toContainText(`http://main--demo.${DOMAIN}:${gatewayPort}/__gateway/share/`);
    await expect(shares.getByRole("listitem")).toContainText("The branch's newest build.");
    await expect(link.getByRole("button", { name: "Copy link" })).toBeVisible();
    await expect(shares.getByRole("listitem")).toHaveCount(1);
    await expect(shares.getByRole("listitem")).toContainText("Expires");
    await drawer.getByTestId("preview-access").scrollIntoViewIfNeeded();
    await page.screenshot({ path: testInfo.outputPath(`share-links-${width}-${scheme}.png`) });
    await shares.getByRole("button", { name: /^Revoke the link/ }).click();
    await expect(shares.getByText("No live share links.")).toBeVisible();
  }
});

test("the build's owner opens its preview to anyone and closes it again; its names are full URLs", async ({
  page,
  browser,
}, testInfo) => {
  await page.goto(`${baseUrl}/?sign-in=/gateway/ticket?name=${buildId}`);
  await signInOnDashboard(page);
  await page.waitForURL(new RegExp(`^http://${buildId}\\.`));
  await page.goto(`${baseUrl}/builds/${buildId}`);
  const drawer = page.getByRole("dialog", { name: `Build ${buildId.slice(0, 8)}` });
  const names = drawer.getByTestId("preview-names");
  await expect(names.getByRole("link", { name: `http://${buildId}.${DOMAIN}:${gatewayPort}/` })).toBeVisible();
  await expect(names.getByRole("link", { name: `http://main--demo.${DOMAIN}:${gatewayPort}/` })).toBeVisible();

  const access = drawer.getByTestId("preview-access");
  await access.getByRole("button", { name: "Open to anyone" }).click();
  await expect(access).toContainText("Public");
  await expect(access).toContainText("The branch's next builds keep this choice.");
  await access.scrollIntoViewIfNeeded();
  await page.screenshot({ path: testInfo.outputPath("access-public-1440-light.png") });
  // A stranger's browser now opens the preview at the branch's name, with no stop at the dashboard.
  const stranger = await browser.newContext();
  const visit = await stranger.newPage();
  const branchUrl = `http://main--demo.${DOMAIN}:${gatewayPort}/web/login`;
  await expect(async () => {
    await visit.goto(branchUrl);
    await expect(visit).toHaveURL(branchUrl, { timeout: 500 });
  }).toPass({ timeout: 10_000 });
  await expect(visit.getByRole("heading", { name: `Log in to build ${buildId}` })).toBeVisible();

  await access.getByRole("button", { name: "Keep to signed-in users" }).click();
  await expect(access).toContainText("Signed-in users");
  await expect(async () => {
    await visit.goto(branchUrl);
    await expect(visit).toHaveURL(new RegExp(`^${baseUrl}/\\?sign-in=`), { timeout: 500 });
  }).toPass({ timeout: 10_000 });
  await stranger.close();
});

test("New build offers the repository's branches as the ref is typed, and all its modules at once", async ({
  page,
}, testInfo) => {
  await page.goto(`${baseUrl}/?sign-in=/gateway/ticket?name=${buildId}`);
  await signInOnDashboard(page);
  await page.waitForURL(new RegExp(`^http://${buildId}\\.`));
  await page.goto(`${baseUrl}/builds`);
  await page.getByRole("button", { name: "New build" }).click();
  const dialog = page.getByRole("dialog", { name: "New build" });
  const ref = dialog.getByLabel("Ref 1", { exact: true });
  await expect(ref).toHaveValue("main");
  const options = dialog.getByTestId("branch-options").locator("option");
  await expect(options).toHaveCount(2);
  expect(await options.evaluateAll((all) => all.map((option) => (option as HTMLOptionElement).value))).toEqual([
    "main",
    "feature/price-list",
  ]);
  expect(await ref.getAttribute("list")).toBe(await dialog.getByTestId("branch-options").getAttribute("id"));
  // Any text is still taken: a tag or a commit id is typed freely.
  await ref.fill("feature/");
  await expect(ref).toHaveValue("feature/");
  await ref.fill("feature/price-list");

  const alpha = dialog.getByRole("checkbox", { name: "alpha", exact: true });
  await expect(alpha).not.toBeChecked();
  await dialog.getByRole("button", { name: "Select all" }).click();
  await expect(alpha).toBeChecked();
  await expect(dialog.getByText("(1 of at most")).toBeVisible();
  await page.screenshot({ path: testInfo.outputPath("new-build-branches-1440-light.png") });
  await dialog.getByRole("button", { name: "Clear" }).click();
  await expect(alpha).not.toBeChecked();
  await dialog.getByRole("button", { name: "Cancel" }).click();
});

test("the builds list can be grouped by branch and pull request", async ({ page }, testInfo) => {
  // Signed in: the builds of a private repository are listed to signed-in users only.
  await page.goto(`${baseUrl}/?sign-in=/gateway/ticket?name=${buildId}`);
  await signInOnDashboard(page);
  await page.waitForURL(new RegExp(`^http://${buildId}\\.`));
  for (const [width, scheme] of [
    [1440, "light"],
    [390, "dark"],
  ] as const) {
    await page.setViewportSize({ width, height: 900 });
    await page.emulateMedia({ colorScheme: scheme });
    await page.goto(`${baseUrl}/builds`);
    await page.getByRole("checkbox", { name: "Group by branch and pull request" }).check();
    const group = page.getByTestId("build-groups").getByRole("region", { name: "demo main" });
    await expect(group.getByRole("heading")).toContainText("1 build");
    await expect(group.getByRole("link", { name: buildId.slice(0, 8), exact: true })).toBeVisible();
    await group.scrollIntoViewIfNeeded();
    await page.screenshot({ path: testInfo.outputPath(`groups-${width}-${scheme}.png`) });
  }
});
