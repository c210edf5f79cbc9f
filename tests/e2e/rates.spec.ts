import fs from "node:fs";
import { shiftDays, todayInCaracas } from "@/components/rates/rate-range";
import { expect, registerThroughHeader, test } from "./fixtures";
import { importRates } from "./workbook-rates";

test.describe("Rates on the dashboard", () => {
  test("with no rate stored, the page says so and offers the fetch", async ({ page, request }) => {
    const latest = await request.get("/rates/");
    test.skip(latest.status() !== 404, "another spec already stored a rate in this run's database");
    await page.goto("/");
    const card = page.getByRole("region", { name: "Latest rate" });
    await expect(card.getByText("No rate is stored yet.")).toBeVisible();
    await expect(card.getByRole("button", { name: "Fetch latest rate" })).toBeDisabled();
    await registerThroughHeader(page);
    await expect(card.getByRole("button", { name: "Fetch latest rate" })).toBeEnabled();
  });

  test("fetch a rate, then a newer one: the latest rate, its change, the chart and the table follow", async ({ page, bcv }) => {
    const today = todayInCaracas();
    const earlier = shiftDays(today, -2);
    const later = shiftDays(today, -1);
    await page.goto("/");
    await registerThroughHeader(page);
    const card = page.getByRole("region", { name: "Latest rate" });
    const history = page.getByRole("region", { name: "Rate history" });

    await bcv.set({ dollar: "240,12345678", date: earlier });
    await card.getByRole("button", { name: "Fetch latest rate" }).click();
    await expect(card.getByRole("status")).toContainText("240.12345678");
    await expect(page.getByTestId("latest-rate")).toHaveText("240.12345678");
    const rows = history.getByRole("table").getByRole("row");
    await expect(rows.filter({ hasText: "240.12345678" })).toHaveCount(1);
    const rowsBefore = await rows.count();

    await bcv.set({ dollar: "250,5", date: later });
    await card.getByRole("button", { name: "Fetch latest rate" }).click();
    await expect(page.getByTestId("latest-rate")).toHaveText("250.50");
    // 250.5 − 240.12345678 = +10.37654322, +4.32 %
    await expect(page.getByTestId("latest-rate-change")).toContainText("+10.37654322");
    await expect(page.getByTestId("latest-rate-change")).toContainText("+4.32%");
    await expect(rows).toHaveCount(rowsBefore + 1);
    // Newest first: the first data row is the new rate.
    await expect(rows.nth(1)).toContainText("250.50");
    // The chart draws one dot per stored rate of the range.
    await expect(history.locator(".recharts-line-dots circle")).toHaveCount(rowsBefore);

    // Fetching the same date again refreshes it instead of adding a row.
    await bcv.set({ dollar: "251,25", date: later });
    await card.getByRole("button", { name: "Fetch latest rate" }).click();
    await expect(card.getByRole("status")).toContainText("Refreshed");
    await expect(page.getByTestId("latest-rate")).toHaveText("251.25");
    await expect(rows).toHaveCount(rowsBefore + 1);

    // Hovering the newest point shows its date and value.
    const lastDot = history.locator(".recharts-line-dots circle").last();
    await lastDot.hover();
    await expect(history.locator(".recharts-tooltip-wrapper")).toContainText("251.25");

    // The CSV is the table's range, newest first, every decimal kept.
    const [download] = await Promise.all([page.waitForEvent("download"), history.getByRole("button", { name: "Download CSV" }).click()]);
    const csv = fs.readFileSync((await download.path())!, "utf8").trim().split("\n");
    expect(csv[0]).toBe("date,dollar");
    expect(csv[1]).toBe(`${later},251.25`);
    expect(csv).toContain(`${earlier},240.12345678`);
  });

  test("range buttons and a custom range change what the chart and table show", async ({ page }) => {
    const today = todayInCaracas();
    const old = shiftDays(today, -200);
    await page.goto("/");
    await registerThroughHeader(page);
    // The home page gives only value dates near today: an old rate comes from a workbook, as in real life.
    await importRates(page.request, [{ date: old, dollar: "100,5" }]);
    await page.reload();

    const history = page.getByRole("region", { name: "Rate history" });
    const oldRow = history.getByRole("row").filter({ hasText: "100.50" });
    await expect(oldRow).toHaveCount(0);
    await history.getByRole("button", { name: "1 year" }).click();
    await expect(history.getByRole("button", { name: "1 year" })).toHaveAttribute("aria-pressed", "true");
    await expect(oldRow).toHaveCount(1);
    // "All" is the longest range the API serves: 3660 days ending today.
    const allRange = page.waitForResponse(
      (response) => response.url().includes(`start_date=${shiftDays(today, -3660)}&end_date=${today}`) && response.ok(),
    );
    await history.getByRole("button", { name: "All" }).click();
    await allRange;
    await expect(oldRow).toHaveCount(1);

    await history.getByRole("button", { name: "Custom" }).click();
    await history.getByLabel("From", { exact: true }).fill(shiftDays(old, -1));
    await history.getByLabel("To", { exact: true }).fill(shiftDays(old, 1));
    await history.getByRole("button", { name: "Apply" }).click();
    await expect(history.getByRole("table").getByRole("row")).toHaveCount(2);
    await expect(oldRow).toHaveCount(1);

    // A range the API refuses shows its problem's detail in the panel.
    await history.getByLabel("From", { exact: true }).fill(today);
    await history.getByLabel("To", { exact: true }).fill(old);
    await history.getByRole("button", { name: "Apply" }).click();
    await expect(history.getByRole("alert")).toBeVisible();
  });

  test("when the central bank fails, the fetch shows the problem's detail and stores nothing", async ({ page, bcv, request }) => {
    await page.goto("/");
    await registerThroughHeader(page);
    const before = await request.get("/rates/");
    await bcv.set({ scenario: "error-500" });
    const card = page.getByRole("region", { name: "Latest rate" });
    await card.getByRole("button", { name: "Fetch latest rate" }).click();
    const alert = card.getByRole("alert");
    await expect(alert).toBeVisible();
    await expect(alert).not.toBeEmpty();
    const after = await request.get("/rates/");
    expect(after.status()).toBe(before.status());
    if (before.ok()) expect(await after.json()).toEqual(await before.json());
  });
});
