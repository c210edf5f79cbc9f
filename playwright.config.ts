import { defineConfig, devices } from "@playwright/test";
import { chromiumArgs, chromiumExecutable } from "./tests/e2e/browser";
import type { E2EOptions } from "./tests/e2e/fixtures";

/**
 * End-to-end tests of the built app. tests/e2e/global-setup.ts starts, on free ports, the central bank
 * stand-in, a temp git repository with a build configuration, and `next start` on temp databases; the
 * specs reach the app of their project through their baseURL (see tests/e2e/fixtures.ts).
 */

/**
 * The build specs whose tests count every build or hold both build slots (builds.spec.ts), with the builds specs
 * that take about as long again: they use an app of their own (E2E_BUILDS_BASE_URL), so that they take turns with
 * each other only, beside the other @builds tests on the main app.
 */
const ownBuildsApp = ["**/builds.spec.ts", "**/auto-builds.spec.ts", "**/build-log-viewer.spec.ts"];

export default defineConfig<E2EOptions>({
  testDir: "tests/e2e",
  testMatch: "**/*.spec.ts",
  globalSetup: "./tests/e2e/global-setup.ts",
  // One central bank stand-in for the whole run, and one app for most specs. The specs that share something
  // besides the app take turns in a project of their own (see projects below); one worker each, and one more for
  // the tests that share nothing, so that every queue starts at once. The suite mostly waits (build stages, the
  // stand-in's delays), which is why four workers fit two cores.
  workers: 4,
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
   * fixture's two build slots. Each of those groups runs one test at a time, beside the other groups and the
   * untagged tests (pages, sign-in, /docs; the languages and the fresh install each on an app of their own), which
   * share nothing but the app: they store only rates of dates no other spec counts, and look only at their own
   * users' data. The @builds tests are two groups, one on each app (ownBuildsApp above).
   */
  projects: [
    { name: "rates", grep: /@rates/, workers: 1 },
    { name: "builds", grep: /@builds/, testIgnore: ownBuildsApp, workers: 1 },
    {
      name: "builds-2",
      grep: /@builds/,
      testMatch: ownBuildsApp,
      workers: 1,
      use: { appServer: "builds" },
    },
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
    launchOptions: { executablePath: chromiumExecutable, args: chromiumArgs },
  },
});
