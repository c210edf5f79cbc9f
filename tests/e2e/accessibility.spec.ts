import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { storeRates } from "./api";
import { expect, PASSWORD, signInThroughHeader, test, uniqueEmail } from "./fixtures";

/**
 * WCAG 2.2 A and AA violations on what is on screen now, each named with the elements it concerns: with 2.2's
 * target size (24 by 24 CSS px, or room around a smaller target; axe spares links inside a sentence).
 */
async function axeViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page })
    .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"])
    .analyze();
  return results.violations.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).join(", ")})`);
}

test.describe("Keyboard and screen reader", () => {
  test("the first Tab offers to skip to the content", async ({ page }) => {
    await page.goto("/");
    await page.keyboard.press("Tab");
    const skip = page.getByRole("link", { name: "Skip to content" });
    await expect(skip).toBeFocused();
    await expect(skip).toBeVisible();
    await page.keyboard.press("Enter");
    await expect(page.locator("main")).toBeFocused();
  });

  test("the sign-in and register dialogs put the cursor in the email field; after signing in, focus is on the page", async ({
    page,
    request,
  }) => {
    const email = uniqueEmail("focus");
    expect((await request.post("/users/", { data: { email, password: PASSWORD } })).status()).toBe(201);
    await page.goto("/");
    const banner = page.getByRole("banner");

    await banner.getByRole("button", { name: "Register" }).click();
    await expect(page.getByRole("dialog", { name: "Create an account" }).getByLabel("Email")).toBeFocused();
    // Switching to the other form inside the open dialog: the cursor is in its email field again.
    await page.getByRole("dialog").getByRole("button", { name: "Sign in" }).click();
    const dialog = page.getByRole("dialog", { name: "Sign in" });
    await expect(dialog.getByLabel("Email")).toBeFocused();
    await page.keyboard.press("Escape");

    await banner.getByRole("button", { name: "Sign in" }).click();
    await expect(dialog.getByLabel("Email")).toBeFocused();
    await page.keyboard.type(email);
    await page.keyboard.press("Tab");
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press("Enter");
    await expect(dialog).toBeHidden();
    await expect(banner.getByRole("button", { name: "Sign out" })).toBeVisible();
    await expect(page.locator("main")).toBeFocused();
  });

  test("the workbook's hidden file input is not a tab stop", async ({ page }) => {
    await page.goto("/");
    await signInThroughHeader(page, process.env.E2E_ADMIN_EMAIL!);
    await expect(page.getByTestId("import-workbook-file")).toHaveAttribute("tabindex", "-1");
  });

  for (const colorScheme of ["light", "dark"] as const) {
    test(`axe finds nothing on the fronts, the price list and the 404 page, ${colorScheme}`, async ({
      page,
      request,
    }) => {
      // Swagger UI's page is large: loading it and checking every node takes minutes on a busy machine.
      test.setTimeout(480_000);
      // Rates of its own, so that the latest rate, the chart and the table are checked whatever other specs stored
      // by then. July 2022: apart from the dates other specs store and count (sparse-history.spec.ts lists them).
      await storeRates(request, [
        { date: "2022-07-01", dollar: "5,6112" },
        { date: "2022-07-04", dollar: "5,6345" },
        { date: "2022-07-05", dollar: "5,7021" },
      ]);
      await page.emulateMedia({ colorScheme });
      await page.goto("/?from=2022-07-01&to=2022-07-31");
      await expect(page.getByRole("region", { name: "Latest rate" })).toBeVisible();
      await expect(page.getByRole("region", { name: "Rate history" }).getByTestId("rate-value")).toHaveCount(3);
      expect(await axeViolations(page), `the rates, ${colorScheme}`).toEqual([]);

      await page.goto("/builds");
      await expect(page.getByRole("region", { name: "Builds", exact: true })).toBeVisible();
      // Loading placeholders pulse; a copy button's empty status is no loading.
      await expect(page.locator("main [role=status].animate-pulse")).toHaveCount(0);
      expect(await axeViolations(page), `the builds console, ${colorScheme}`).toEqual([]);

      await page.goto("/developers");
      await expect(page.getByRole("region", { name: "Rate webhooks" })).toBeVisible();
      // Loading placeholders pulse; a copy button's empty status is no loading.
      await expect(page.locator("main [role=status].animate-pulse")).toHaveCount(0);
      expect(await axeViolations(page), `the integrators' page, ${colorScheme}`).toEqual([]);

      await page.goto("/prices");
      await expect(page.getByRole("region", { name: "Price list" })).toBeVisible();
      expect(await axeViolations(page), `the price list, ${colorScheme}`).toEqual([]);

      const missing = await page.goto("/no-such-page");
      expect(missing?.status()).toBe(404);
      await expect(page.getByRole("heading", { name: "This page does not exist" })).toBeVisible();
      await expect(page.getByRole("link", { name: "Back to the home page" })).toHaveAttribute("href", "/");
      expect(await axeViolations(page), `the 404 page, ${colorScheme}`).toEqual([]);
    });

    test(`axe finds nothing on /docs, ${colorScheme}`, async ({ page }) => {
      test.setTimeout(480_000);
      await page.emulateMedia({ colorScheme });
      await page.goto("/docs");
      await expect(page.locator(".swagger-ui .opblock").first()).toBeVisible({ timeout: 120_000 });
      expect(await axeViolations(page), `/docs, ${colorScheme}`).toEqual([]);
    });
  }
});
