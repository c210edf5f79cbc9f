import AxeBuilder from "@axe-core/playwright";
import type { Page, TestInfo } from "@playwright/test";
import { expect, registerThroughHeader, test } from "./fixtures";

/** WCAG 2.1 A and AA violations (contrast, labels, names, roles) on what is on screen now. */
async function expectNoAxeViolations(page: Page, testInfo: TestInfo, name: string) {
  const results = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  await testInfo.attach(`axe-${name}`, { body: JSON.stringify(results.violations, null, 2), contentType: "application/json" });
  const summary = results.violations.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).join(", ")})`);
  expect(summary, `accessibility violations on ${name}`).toEqual([]);
}

/**
 * Saves a screenshot into this test's output folder and attaches it to the report. Full page for the
 * dashboard; the viewport where a modal is open, since a full-page capture misplaces the top layer.
 */
async function snapshot(page: Page, testInfo: TestInfo, name: string, fullPage = true) {
  const file = testInfo.outputPath(`${name}.png`);
  await page.screenshot({ path: file, fullPage });
  await testInfo.attach(name, { path: file, contentType: "image/png" });
}

// With the build specs (@builds) and named after them, so the screenshots and checks see their builds.
test.describe("Screenshots and accessibility checks of the dashboard, and /docs", { tag: "@builds" }, () => {
  for (const colorScheme of ["light", "dark"] as const) {
    test(`the dashboard in ${colorScheme} mode`, async ({ page }, testInfo) => {
      await page.emulateMedia({ colorScheme });
      await page.goto("/");
      await expect(page.getByRole("region", { name: "Latest rate" })).toBeVisible();
      await expect(page.getByRole("region", { name: "Builds" }).getByRole("status")).toHaveCount(0);
      await snapshot(page, testInfo, `dashboard-signed-out-${colorScheme}`);
      await expectNoAxeViolations(page, testInfo, `dashboard-signed-out-${colorScheme}`);

      await registerThroughHeader(page);
      await snapshot(page, testInfo, `dashboard-signed-in-${colorScheme}`);
      await expectNoAxeViolations(page, testInfo, `dashboard-signed-in-${colorScheme}`);

      const firstBuild = page.getByTestId("build-row").first();
      if (await firstBuild.count()) {
        await firstBuild.getByRole("link").click();
        const log = page.getByRole("dialog", { name: /^Build / }).getByTestId("stage-log");
        await expect(log).toBeVisible();
        await expect(log).not.toHaveAttribute("aria-busy", "true");
        await snapshot(page, testInfo, `build-detail-${colorScheme}`, false);
        await expectNoAxeViolations(page, testInfo, `build-detail-${colorScheme}`);
        await page.keyboard.press("Escape");
      }

      await page.getByRole("button", { name: "New build" }).click();
      await expect(page.getByRole("dialog", { name: "New build" }).getByLabel("Repository 1", { exact: true })).toBeVisible();
      await snapshot(page, testInfo, `new-build-form-${colorScheme}`, false);
      await expectNoAxeViolations(page, testInfo, `new-build-form-${colorScheme}`);
    });
  }

  for (const viewport of [
    { width: 390, height: 844 },
    { width: 1280, height: 800 },
    { width: 1920, height: 1080 },
  ]) {
    test(`the dashboard at ${viewport.width} px wide`, async ({ page }, testInfo) => {
      await page.setViewportSize(viewport);
      await page.goto("/");
      await expect(page.getByRole("region", { name: "Builds" }).getByRole("status")).toHaveCount(0);
      await snapshot(page, testInfo, `dashboard-${viewport.width}px`);
      // Phones and tablets in detail: viewports.spec.ts.
      const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(scrollWidth, "the page scrolls sideways").toBeLessThanOrEqual(viewport.width);
    });
  }

  test("the API docs", async ({ page }, testInfo) => {
    await page.goto("/docs");
    await expect(page.getByText(/rates/i).first()).toBeVisible({ timeout: 30_000 });
    await snapshot(page, testInfo, "docs");
  });
});
