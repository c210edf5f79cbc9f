import type { Locator, Page } from "@playwright/test";
import { shiftDays, todayInCaracas } from "@/components/rates/rate-range";
import { apiUser, startApiBuild, storeRates, waitForBuildStatus } from "./api";
import { expect, inEachScheme, screenshotToLookAt, signInThroughHeader, test } from "./fixtures";

/**
 * Phones and tablets: no page and no dialog may be wider than the screen (the rates table with
 * eight-decimal values could widen a 390 px page to 417 px, and cut the drawer's Close button off).
 * Every check runs in light and dark, and each state is saved as a screenshot to look at.
 */

let email: string;
let headers: Record<string, string>;
let buildId: string;
let canceledId: string;

test.beforeAll(async ({ request }) => {
  const user = await apiUser(request, "viewports");
  email = user.email;
  headers = user.headers;
  // Eight decimals, and a gap of four days between two of the dates. In 2023, inside "all" but apart from the
  // dates the rate specs (@rates), which run meanwhile, store and count.
  await storeRates(request, [
    { date: "2023-03-01", dollar: "231,98765432" },
    { date: "2023-03-02", dollar: "232,10000001" },
    { date: "2023-03-06", dollar: "1234,56789012" },
  ]);
  buildId = await startApiBuild(request, user.headers, ["alpha", "beta"]);
  // A build canceled while it installs, for the drawer's interrupted log.
  canceledId = await startApiBuild(request, user.headers, ["slow"]);
  await waitForBuildStatus(request, canceledId, "installing");
  await expect
    .poll(async () => (await request.get(`/builds/${canceledId}/logs?stage=install`)).text(), { timeout: 30_000 })
    .toContain("still installing 1");
  expect((await request.post(`/builds/${canceledId}/cancel`, { headers: user.headers })).ok()).toBe(true);
  await waitForBuildStatus(request, buildId, "running");
  await waitForBuildStatus(request, canceledId, "canceled");
});

test.afterAll(async ({ request }) => {
  // The build is not this spec's to keep: its preview would hold a port until the run ends.
  await request.delete(`/builds/${buildId}`, { headers });
});

/** The page is no wider than the viewport; on failure, names the elements that stick out. */
async function expectPageFits(page: Page, what: string) {
  const measured = await page.evaluate(() => {
    const width = window.innerWidth;
    const offenders = [...document.querySelectorAll<HTMLElement>("body *")]
      .filter((el) => el.getBoundingClientRect().right > width + 0.5 && el.getClientRects().length > 0)
      .slice(0, 5)
      .map(
        (el) =>
          `${el.tagName.toLowerCase()}.${String(el.className).split(" ").slice(0, 4).join(".")} → ${Math.round(el.getBoundingClientRect().right)}`,
      );
    return { scrollWidth: document.documentElement.scrollWidth, width, offenders };
  });
  expect(
    measured.scrollWidth,
    `${what}: the page is ${measured.scrollWidth} px wide on a ${measured.width} px screen; ${measured.offenders.join(", ")}`,
  ).toBeLessThanOrEqual(measured.width);
  await expectPanelsHoldTheirControls(page, what);
}

/**
 * Every control of a panel lies within the panel's card: the currency picker of "Latest rate" stuck out of its
 * card at 320 px, which the page's width did not show. Controls inside a box that scrolls sideways are that
 * box's business.
 */
async function expectPanelsHoldTheirControls(page: Page, what: string) {
  const offenders = await page.evaluate(() => {
    const found: string[] = [];
    for (const panel of document.querySelectorAll<HTMLElement>("section[aria-labelledby]")) {
      const card = panel.getBoundingClientRect();
      const name = document.getElementById(panel.getAttribute("aria-labelledby")!)?.textContent ?? "?";
      for (const control of panel.querySelectorAll<HTMLElement>(
        "input, select, textarea, button, a, [role=combobox]",
      )) {
        const box = control.getBoundingClientRect();
        if (control.getClientRects().length === 0 || box.width <= 1) continue;
        let scrolled = false;
        for (let el = control.parentElement; el && el !== panel; el = el.parentElement) {
          if (getComputedStyle(el).overflowX !== "visible") scrolled = true;
        }
        if (scrolled) continue;
        if (box.right > card.right + 0.5 || box.left < card.left - 0.5) {
          const label = control.getAttribute("aria-label") ?? control.textContent?.trim().slice(0, 30) ?? "";
          found.push(
            `${name}: ${control.tagName.toLowerCase()} "${label}" spans ${Math.round(box.left)}–${Math.round(box.right)}, the card ${Math.round(card.left)}–${Math.round(card.right)}`,
          );
        }
      }
    }
    return found;
  });
  expect(offenders, `${what}: controls outside their panel`).toEqual([]);
}

/** A dialog lies inside the viewport, does not scroll sideways, and its Close button is fully visible. */
async function expectDialogFits(page: Page, dialog: Locator, what: string, centred: boolean) {
  await expect(dialog).toBeVisible();
  const viewport = page.viewportSize()!;
  const box = (await dialog.boundingBox())!;
  expect(box.x, `${what}: left edge`).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width, `${what}: right edge`).toBeLessThanOrEqual(viewport.width + 0.5);
  if (centred)
    expect(Math.abs(box.x - (viewport.width - box.x - box.width)), `${what}: centred`).toBeLessThanOrEqual(2);
  const inner = await dialog.evaluate((el) => {
    const scroller = el.querySelector<HTMLElement>(":scope > div > div:last-child") ?? el;
    return { dialog: el.scrollWidth - el.clientWidth, content: scroller.scrollWidth - scroller.clientWidth };
  });
  expect(inner, `${what}: nothing inside scrolls sideways`).toEqual({ dialog: 0, content: 0 });
  await expect(dialog.getByRole("button", { name: "Close", exact: true })).toBeInViewport({ ratio: 1 });
  await expectPageFits(page, what);
}

for (const width of [320, 390, 768]) {
  test(`at ${width} px nothing is wider than the screen, in light and dark`, { tag: "@builds" }, async ({ page }) => {
    // Seven states in two schemes, each measured: past the default two minutes on a busy two-core machine.
    test.setTimeout(300_000);
    await page.setViewportSize({ width, height: 800 });
    const name = (scheme: string, state: string) => `${width}px-${scheme}-${state}`;
    await page.goto("/?range=all");
    const history = page.getByRole("region", { name: "Rate history" });
    await expect(history.getByTestId("rate-value").first()).toBeVisible();
    await inEachScheme(page, async (scheme) => {
      await expectPageFits(page, name(scheme, "rates"));
      await screenshotToLookAt(page, name(scheme, "rates"), { fullPage: true });
    });

    await page.getByRole("banner").getByRole("button", { name: "Sign in" }).click();
    await inEachScheme(page, async (scheme) => {
      await expectDialogFits(page, page.getByRole("dialog", { name: "Sign in" }), name(scheme, "sign-in"), true);
    });
    await page.keyboard.press("Escape");
    await signInThroughHeader(page, email);
    await expect(page.getByRole("banner").getByRole("button", { name: "Sign out" })).toBeVisible();
    await inEachScheme(page, async (scheme) => expectPageFits(page, name(scheme, "rates-signed-in")));

    // A custom range with a mistake: the named problem fits too.
    await history.getByRole("button", { name: "Custom" }).click();
    await history.getByLabel("From", { exact: true }).fill(todayInCaracas());
    await history.getByLabel("To", { exact: true }).fill(shiftDays(todayInCaracas(), -3));
    await history.getByRole("button", { name: "Apply" }).click();
    await expect(history.getByTestId("range-problems")).toBeVisible();
    await history.getByTestId("range-problems").scrollIntoViewIfNeeded();
    await inEachScheme(page, async (scheme) => {
      await expectPageFits(page, name(scheme, "range-problem"));
      await screenshotToLookAt(page, name(scheme, "range-problem"));
    });

    // The builds console, signed in with its build actions, and the integrators' page.
    await page.goto("/builds");
    await expect(page.getByRole("region", { name: "Builds" }).getByRole("status")).toHaveCount(0);
    await inEachScheme(page, async (scheme) => {
      await expectPageFits(page, name(scheme, "builds"));
      await screenshotToLookAt(page, name(scheme, "builds"), { fullPage: true });
    });
    await page.goto("/developers");
    await expect(page.getByRole("region", { name: "Rate webhooks" }).getByRole("status")).toHaveCount(0);
    await inEachScheme(page, async (scheme) => {
      await expectPageFits(page, name(scheme, "developers"));
      await screenshotToLookAt(page, name(scheme, "developers"), { fullPage: true });
    });

    await page.goto("/builds");
    await page.getByRole("button", { name: "New build" }).click();
    const form = page.getByRole("dialog", { name: "New build" });
    await expect(form.getByLabel("Repository 1", { exact: true })).toBeFocused();
    await inEachScheme(page, async (scheme) => {
      await expectDialogFits(page, form, name(scheme, "new-build"), true);
      await screenshotToLookAt(page, name(scheme, "new-build"));
    });
    await page.keyboard.press("Escape");

    await page.goto(`/builds?build=${buildId}`);
    const drawer = page.getByRole("dialog", { name: /^Build / });
    await expect(drawer.getByTestId("stage-log")).not.toHaveAttribute("aria-busy", "true");
    await expect(drawer.getByTestId("preview-url")).toBeVisible();
    await inEachScheme(page, async (scheme) => {
      await expectDialogFits(page, drawer, name(scheme, "drawer"), false);
      await screenshotToLookAt(page, name(scheme, "drawer"));
    });

    await drawer.getByRole("button", { name: "Destroy", exact: true }).click();
    const confirm = page.getByRole("dialog", { name: `Destroy build ${buildId.slice(0, 8)}?` });
    await inEachScheme(page, async (scheme) => {
      await expectDialogFits(page, confirm, name(scheme, "confirm-destroy"), true);
      await screenshotToLookAt(page, name(scheme, "confirm-destroy"));
    });
    await confirm.getByRole("button", { name: "Keep it" }).click();
    await expect(confirm).toBeHidden();
    await expect(drawer.getByTestId("build-status")).toHaveText("running");

    // The canceled build opens on the install log it interrupted.
    await page.goto(`/builds?build=${canceledId}`);
    await expect(drawer.getByRole("heading", { name: "Log · install" })).toBeVisible();
    await expect(drawer.getByTestId("stage-log")).toContainText("still installing 1");
    await inEachScheme(page, async (scheme) => {
      await expectDialogFits(page, drawer, name(scheme, "canceled"), false);
      await screenshotToLookAt(page, name(scheme, "canceled"));
    });

    await page.goto("/builds?build=no-such-build-id-at-all");
    const missing = page.getByRole("dialog", { name: "Build not found" });
    await expect(missing.getByRole("button", { name: "Back to the builds" })).toBeVisible();
    await inEachScheme(page, async (scheme) => {
      await expectDialogFits(page, missing, name(scheme, "not-found"), false);
      await screenshotToLookAt(page, name(scheme, "not-found"));
    });
  });
}
