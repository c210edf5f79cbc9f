import fs from "node:fs";
import { defineConfig, devices } from "@playwright/test";

/**
 * End-to-end tests of the built app. tests/e2e/global-setup.ts starts, on free ports, the central bank
 * stand-in, a temp git repository with a build configuration, and `next start` on a temp database; the
 * specs reach the app through E2E_BASE_URL (see tests/e2e/fixtures.ts).
 */
const executablePath =
  process.env.CHROMIUM_PATH ?? (fs.existsSync("/usr/bin/chromium") ? "/usr/bin/chromium" : undefined);

export default defineConfig({
  testDir: "tests/e2e",
  testMatch: "**/*.spec.ts",
  globalSetup: "./tests/e2e/global-setup.ts",
  // One app, one database and one central bank stand-in for the whole run. Two workers; the specs that share
  // something besides the app take turns in a project of their own (see projects below).
  workers: 2,
  fullyParallel: false,
  forbidOnly: Boolean(process.env.CI),
  // Per test; with two workers on two cores each takes longer than it would alone.
  timeout: 180_000,
  // How long a check waits for the page to get there: two workers share two cores with the app and the builds,
  // and a loaded machine can take over 15 s to draw a drawer. A page that is quick passes as soon as it is.
  expect: { timeout: 30_000 },
  outputDir: "test-results",
  reporter: [["list"], ["html", { open: "never", outputFolder: "playwright-report" }]],
  /**
   * The tests tagged @rates change the central bank stand-in (one for the run) or store rates and read back what
   * is the latest or how many there are; the tests tagged @builds start builds and count them, against the
   * fixture's two build slots. Each of those groups runs one test at a time, beside the other group and the
   * untagged tests (pages, sign-in, /docs, the fresh install on a server of its own), which share nothing but the
   * app.
   */
  projects: [
    { name: "rates", grep: /@rates/, workers: 1 },
    { name: "builds", grep: /@builds/, workers: 1 },
    // Test by test rather than file by file: the last file's tests (swagger-docs.spec.ts) spread over both workers
    // once the other projects are done, instead of running one after another on one.
    { name: "pages", grepInvert: /@rates|@builds/, fullyParallel: true },
  ],
  use: {
    ...devices["Desktop Chrome"],
    viewport: { width: 1440, height: 960 },
    /**
     * A trace records every test (a DOM snapshot per action, a screencast of the page) and keeps it only when the
     * test fails: recording doubles what the browser costs on two cores that the app and the builds share. CI
     * records none: it runs in a clone it removes at the end (.ci/run), its traces with it. Elsewhere the trace of
     * a failure keeps its DOM snapshots, which the trace viewer steps through, without the screencast, the
     * costlier half; the failure's own screenshot is kept (below).
     */
    trace: process.env.CI ? "off" : { mode: "retain-on-failure", screenshots: false },
    screenshot: "only-on-failure",
    launchOptions: {
      executablePath,
      // Without the networking flags Chromium keeps trying to reach Google's services, which this machine cannot.
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    },
  },
});
