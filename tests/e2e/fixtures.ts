import crypto from "node:crypto";
import { type APIRequestContext, test as base, expect, type Locator, type Page } from "@playwright/test";

/**
 * Which of the global setup's apps a project's (playwright.config.ts) or a spec's tests use: `main`, the one most
 * specs share; `builds`, whose builds only the specs that count every build or hold every build slot start; or
 * `languages`, whose rates only languages.spec.ts stores, fetched from a central bank stand-in of its own.
 */
export type AppServer = "main" | "builds" | "languages";

export interface E2EOptions {
  appServer: AppServer;
}

const baseUrlVariables: Record<AppServer, string> = {
  main: "E2E_BASE_URL",
  builds: "E2E_BUILDS_BASE_URL",
  languages: "E2E_LANGUAGES_BASE_URL",
};

/**
 * The specs' `test`: baseURL is the app of the test's project, started by the global setup, and helpers do what a
 * person does in the header (register, sign in, sign out) and what the operator does to the central bank stand-in.
 */
export const test = base.extend<E2EOptions & { bcv: BcvControl }>({
  appServer: ["main", { option: true }],
  baseURL: async ({ appServer }, use) => {
    const variable = baseUrlVariables[appServer];
    const url = process.env[variable];
    if (!url) throw new Error(`${variable} is not set: run the specs through playwright.config.ts.`);
    await use(url);
  },
  // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's dependencies from this pattern; none.
  bcv: async ({}, use) => {
    const url = process.env.E2E_BCV_URL;
    if (!url) throw new Error("The central bank stand-in is not running (tests/support/bcv-server-cli.ts missing).");
    const control = new BcvControl(url);
    await use(control);
    // Each spec starts from the fixture page, whatever the previous one published.
    await control.set({ scenario: "ok", dollar: null, date: null });
  },
});

export { expect };

/** Waits for an app the global setup starts without waiting for it (any answer will do), `name` saying which. */
export async function waitUntilAppAnswers(request: APIRequestContext, name: string) {
  await expect
    .poll(
      async () =>
        request.get("/users/me").then(
          () => "answers",
          (error: Error) => error.message,
        ),
      { message: `${name} answers`, timeout: 60_000 },
    )
    .toBe("answers");
}

export class BcvControl {
  constructor(readonly url: string) {}

  /** Changes what the stand-in serves: a scenario (ok, error-500, no-dolar, ...) and/or the published rate. */
  async set(state: { scenario?: string; dollar?: string | null; date?: string | null }) {
    const response = await fetch(new URL("__control", this.url), {
      method: "PUT",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(state),
    });
    if (!response.ok) throw new Error(`PUT /__control answered ${response.status}: ${await response.text()}`);
  }
}

/**
 * A screenshot to look at: saved in the test's output folder and attached to the report. CI takes none, as it
 * records no trace (playwright.config.ts): it runs in a clone it removes at the end (.ci/run), report and
 * screenshots with it, and each capture costs the browser 0.3 s (0.6 s a full page) of the two cores that the
 * app and the builds share, some seventy a run. A failing test's own screenshot is taken everywhere.
 */
export async function screenshotToLookAt(target: Page | Locator, name: string, { fullPage = false } = {}) {
  if (process.env.CI) return;
  const testInfo = base.info();
  const file = testInfo.outputPath(`${name}.png`);
  if ("mouse" in target) await target.screenshot({ path: file, fullPage });
  else await target.screenshot({ path: file });
  await testInfo.attach(name, { path: file, contentType: "image/png" });
}

/**
 * Runs the checks of the state on screen in light, then in dark, on the same page: the colours follow the system's
 * scheme while the page is open (darkMode "media", components/ui/use-prefers-dark.ts), so one visit to each state
 * serves both, instead of every navigation and dialog twice. Two frames after the switch, React has drawn what
 * depends on the scheme (the chart's colours). The buttons change colour through a CSS transition
 * (transition-colors): the checks wait for the transitions to end, or axe would measure a contrast halfway.
 */
export async function inEachScheme(page: Page, check: (scheme: "light" | "dark") => Promise<void>) {
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.evaluate(async () => {
      await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
      const transitions = document.getAnimations().filter((animation) => animation instanceof CSSTransition);
      await Promise.all(transitions.map((transition) => transition.finished.catch(() => undefined)));
    });
    await check(scheme);
  }
  await page.emulateMedia({ colorScheme: "light" });
}

export const PASSWORD = "correct horse battery";

export const uniqueEmail = (label: string) => `${label}-${crypto.randomUUID().slice(0, 8)}@example.com`;

/** Registers through the header's dialog, which signs the new account in. */
export async function registerThroughHeader(page: Page, email = uniqueEmail("person")) {
  await page.getByRole("banner").getByRole("button", { name: "Register" }).click();
  const dialog = page.getByRole("dialog", { name: "Create an account" });
  await dialog.getByLabel("Email").fill(email);
  await dialog.getByLabel("Password").fill(PASSWORD);
  await dialog.getByRole("button", { name: "Create account" }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByRole("banner").getByText(email)).toBeVisible();
  return email;
}

export async function signInThroughHeader(page: Page, email: string, password = PASSWORD) {
  await page.getByRole("banner").getByRole("button", { name: "Sign in" }).click();
  const dialog = page.getByRole("dialog", { name: "Sign in" });
  await dialog.getByLabel("Email").fill(email);
  await dialog.getByLabel("Password").fill(password);
  await dialog.getByRole("button", { name: "Sign in" }).click();
}

export async function signOutThroughHeader(page: Page) {
  await page.getByRole("banner").getByRole("button", { name: "Sign out" }).click();
  await expect(page.getByRole("banner").getByRole("button", { name: "Sign in" })).toBeVisible();
}
