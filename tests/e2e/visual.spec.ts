import AxeBuilder from "@axe-core/playwright";
import type { Page, TestInfo } from "@playwright/test";
import { expect, inEachScheme, registerThroughHeader, screenshotToLookAt, test } from "./fixtures";

/** WCAG 2.1 A and AA violations (contrast, labels, names, roles) on what is on screen now. */
async function expectNoAxeViolations(page: Page, testInfo: TestInfo, name: string) {
  const results = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  await testInfo.attach(`axe-${name}`, {
    body: JSON.stringify(results.violations, null, 2),
    contentType: "application/json",
  });
  const summary = results.violations.map(
    (v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).join(", ")})`,
  );
  expect(summary, `accessibility violations on ${name}`).toEqual([]);
}

/**
 * A screenshot to look at (none under CI: fixtures.ts). Full page for the dashboard; the viewport where a modal
 * is open, since a full-page capture misplaces the top layer.
 */
async function snapshot(page: Page, name: string, fullPage = true) {
  await screenshotToLookAt(page, name, { fullPage });
}

// With the build specs (@builds) and named after them, so the screenshots and checks see their builds.
/** Each front, with what it waits for before it is looked at: no panel still loading. */
const FRONTS = [
  {
    path: "/",
    name: "rates",
    ready: (page: Page) => page.getByRole("region", { name: "Latest rate" }).getByTestId("latest-rate"),
  },
  { path: "/builds", name: "builds", ready: (page: Page) => page.getByRole("region", { name: "Builds" }) },
  {
    path: "/developers",
    name: "developers",
    ready: (page: Page) => page.getByRole("region", { name: "Rate webhooks" }),
  },
] as const;

async function openFront(page: Page, front: (typeof FRONTS)[number]) {
  await page.goto(front.path);
  await expect(front.ready(page)).toBeVisible();
  // Loading placeholders pulse; a copy button's empty status is no loading.
  await expect(page.locator("main [role=status].animate-pulse")).toHaveCount(0);
}

// With the build specs (@builds) and named after them, so the screenshots and checks see their builds.
test.describe("Screenshots and accessibility checks of the fronts, and /docs", { tag: "@builds" }, () => {
  // Each state in light and then dark on the same page (inEachScheme): one visit, one sign-up and one dialog of
  // each kind instead of two. accessibility.spec.ts loads the fronts in dark from the start.
  test("the rates, the builds console and the integrators' page in light and dark mode", async ({ page }, testInfo) => {
    // Fourteen accessibility checks of three pages: past the default three minutes on a busy two-core machine.
    test.setTimeout(420_000);
    for (const front of FRONTS) {
      await openFront(page, front);
      await inEachScheme(page, async (scheme) => {
        await snapshot(page, `${front.name}-signed-out-${scheme}`);
        await expectNoAxeViolations(page, testInfo, `${front.name}-signed-out-${scheme}`);
      });
    }

    await registerThroughHeader(page);
    for (const front of FRONTS) {
      await openFront(page, front);
      await inEachScheme(page, async (scheme) => {
        await snapshot(page, `${front.name}-signed-in-${scheme}`);
        await expectNoAxeViolations(page, testInfo, `${front.name}-signed-in-${scheme}`);
      });
    }

    await openFront(page, FRONTS[1]);
    const firstBuild = page.getByTestId("build-row").first();
    if (await firstBuild.count()) {
      await firstBuild.getByRole("link").click();
      const log = page.getByRole("dialog", { name: /^Build / }).getByTestId("stage-log");
      await expect(log).toBeVisible();
      await expect(log).not.toHaveAttribute("aria-busy", "true");
      await inEachScheme(page, async (scheme) => {
        await snapshot(page, `build-detail-${scheme}`, false);
        await expectNoAxeViolations(page, testInfo, `build-detail-${scheme}`);
      });
      await page.keyboard.press("Escape");
    }

    await page.getByRole("button", { name: "New build" }).click();
    await expect(
      page.getByRole("dialog", { name: "New build" }).getByLabel("Repository 1", { exact: true }),
    ).toBeVisible();
    await inEachScheme(page, async (scheme) => {
      await snapshot(page, `new-build-form-${scheme}`, false);
      await expectNoAxeViolations(page, testInfo, `new-build-form-${scheme}`);
    });
  });

  for (const viewport of [
    { width: 390, height: 844 },
    { width: 1280, height: 800 },
    { width: 1920, height: 1080 },
  ]) {
    test(`the fronts at ${viewport.width} px wide`, async ({ page }) => {
      await page.setViewportSize(viewport);
      for (const front of FRONTS) {
        await openFront(page, front);
        await snapshot(page, `${front.name}-${viewport.width}px`);
        // Phones and tablets in detail: viewports.spec.ts.
        const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
        expect(scrollWidth, `${front.path} scrolls sideways`).toBeLessThanOrEqual(viewport.width);
      }
    });
  }

  test("the API docs", async ({ page }) => {
    await page.goto("/docs");
    await expect(page.getByText(/rates/i).first()).toBeVisible({ timeout: 30_000 });
    await snapshot(page, "docs");
  });
});
