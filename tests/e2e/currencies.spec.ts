import fs from "node:fs";
import type { Locator } from "@playwright/test";
import { Q4_2025 } from "../support/workbooks";
import {
  expect,
  registerThroughHeader,
  screenshotToLookAt,
  signInThroughHeader,
  signOutThroughHeader,
  test,
} from "./fixtures";

/**
 * Every currency on the dashboard: the bank's fourth-quarter workbook imported through the page by an admin, the rate
 * card, chart and table in another currency, and the converter. Figures read from the workbook by hand.
 */
test.describe("Currencies on the dashboard", { tag: "@rates" }, () => {
  test("import a workbook, show the euro, convert on a weekend", async ({ page }) => {
    // Many steps and eight screenshots: more than the default two minutes on a busy machine.
    test.setTimeout(300_000);
    await page.goto("/");
    const importButton = page.getByRole("button", { name: "Import workbook…" });
    // Imports are for admins only: nobody else is offered the button, signed out or signed in.
    await expect(importButton).toHaveCount(0);
    const roleRead = page.waitForResponse((response) => new URL(response.url()).pathname === "/users/me");
    await registerThroughHeader(page);
    expect((await (await roleRead).json()).role).toBe("user");
    await expect(importButton).toHaveCount(0);
    await signOutThroughHeader(page);
    await signInThroughHeader(page, process.env.E2E_ADMIN_EMAIL!);
    await expect(importButton).toBeEnabled();

    await page.getByTestId("import-workbook-file").setInputFiles(Q4_2025);
    await expect(page.getByText(/2_1_2d25_smc\.xls: 9 days read \(Oct 2, 2025 to Oct 14, 2025\)/)).toBeVisible();

    const history = page.getByRole("region", { name: "Rate history" });
    await history.getByRole("button", { name: "Custom" }).click();
    await history.getByLabel("From", { exact: true }).fill("2025-10-01");
    await history.getByLabel("To", { exact: true }).fill("2025-10-14");
    await history.getByRole("button", { name: "Apply" }).click();
    const table = history.getByRole("table");
    // A header row, then the nine value dates.
    await expect(table.getByRole("row")).toHaveCount(10);
    await expect(table.getByRole("row").nth(1)).toContainText("197.2456");

    // USD first in the selector; the euro's rates replace the dollar's in the card, the chart and the table.
    // The card's picker is the converter's searchable list: typed into, by code or name.
    const select = page.getByRole("region", { name: "Latest rate" }).getByRole("combobox", { name: "Currency" });
    await select.click();
    await expect(page.getByRole("listbox", { name: "Currencies" }).getByRole("option").first()).toContainText("USD");
    await select.fill("euro");
    await select.press("Enter");
    await expect(table.getByRole("row").nth(1)).toContainText("228.0909");
    await expect(table.getByRole("row")).toHaveCount(10);
    await expect(table).toContainText("Bs. per EUR");
    await expect(history.locator(".recharts-line-dots circle")).toHaveCount(9);
    await expect(page.getByRole("region", { name: "Latest rate" })).toContainText("Bolívares per Euro");

    // The currency is in the address: a reload (or a shared link) shows the euro again, range and all.
    await expect(page).toHaveURL(/[?&]currency=EUR(&|$)/);
    await page.reload();
    await expect(select).toHaveValue("EUR · Euro");
    await expect(table).toContainText("Bs. per EUR");
    await expect(table.getByRole("row").nth(1)).toContainText("228.0909");
    // The CSV names the currency and the first and last dates it holds, not the range asked for.
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      history.getByRole("link", { name: "Download CSV" }).click(),
    ]);
    expect(download.suggestedFilename()).toBe("bcv-rates_EUR_2025-10-02_2025-10-14.csv");
    // The server's export: the dollar's column, then the euro's, newest first, as stored.
    const rows = fs.readFileSync((await download.path())!, "utf8").split("\r\n");
    expect(rows[0]).toBe("date,USD,EUR");
    expect(rows[1]).toBe("2025-10-14,197.2456,228.09086692");
    expect(rows.at(-2)!.startsWith("2025-10-02,")).toBe(true);
    expect(rows).toHaveLength(1 + 9 + 1);

    // The converter converts as it is typed: no button to press.
    const converter = page.getByRole("region", { name: "Converter" });
    // It starts from the card's currency, the euro: the dollar is picked, whose box is then typed into.
    await pickCurrency(converter, "From", "USD");
    await pickCurrency(converter, "To", "VES");
    await converter.getByLabel("Amount in USD", { exact: true }).fill("100");
    await converter.getByLabel("Date", { exact: true }).fill("2025-10-12");
    const result = converter.getByTestId("conversion-result");
    // Sunday 12 October has no rate: Friday 10 October's, 193.2996 per dollar.
    await expect(result).toContainText("100 USD = Bs. 19,329.96");
    await expect(result).toContainText("1 USD = Bs. 193.2996");
    await expect(result).toContainText("Bs. 1 = 0.005173 USD");
    await expect(result).toContainText("Rates of Oct 10, 2025 (no rates on Oct 12, 2025: 2 days earlier)");

    // Venezuelan writing: a dot groups thousands, a comma starts the decimals.
    await converter.getByLabel("Amount in USD", { exact: true }).fill("1.234,5");
    await expect(result).toContainText("1,234.5 USD = Bs. 238,628.36");
    await converter.getByLabel("Amount in USD", { exact: true }).fill("0");
    await expect(converter.getByText("must be greater than zero")).toBeVisible();
    await converter.getByLabel("Amount in USD", { exact: true }).fill("12abc");
    await expect(converter.getByText("Write an amount such as 1,234.56 or 50,000.")).toBeVisible();
    await converter.getByLabel("Amount in USD", { exact: true }).fill("100");
    // The list is searched by name as well as code.
    await pickCurrency(converter, "From", "euro", "EUR");
    await pickCurrency(converter, "To", "MXN");
    await converter.getByLabel("Date", { exact: true }).fill("2025-10-14");
    // Money rounds to the currency's cents; the rate shows 4 decimals.
    await expect(result).toContainText("100 EUR = 2,132.87 MXN");
    await expect(result).toContainText("1 EUR = 21.3287 MXN");

    for (const colorScheme of ["light", "dark"] as const) {
      for (const width of [1440, 390]) {
        await page.setViewportSize({ width, height: width > 400 ? 960 : 844 });
        await page.emulateMedia({ colorScheme });
        await screenshotToLookAt(page, `currencies-${width}-${colorScheme}`, { fullPage: true });
        // The converter's pickers show the whole name of what they hold, also in the narrow column at 1440 px.
        await pickCurrency(converter, "To", "VES");
        for (const label of ["From", "To"]) {
          const field = converter.getByRole("combobox", { name: label, exact: true });
          const clipped = await field.evaluate((input: HTMLInputElement) => input.scrollWidth > input.clientWidth);
          expect(clipped, `${label} (${await field.inputValue()}) at ${width} px`).toBe(false);
        }
        // The rate card and the converter fit the screen (the whole page's width is the viewports spec's).
        for (const name of ["Latest rate", "Converter"]) {
          const box = (await page.getByRole("region", { name }).boundingBox())!;
          expect(box.x + box.width, `${name} at ${width} px, ${colorScheme}`).toBeLessThanOrEqual(width);
        }
      }
    }
    await select.click();
    await select.fill("USD");
    await select.press("Enter");
    await expect(select).toHaveValue("USD · US dollar");
  });
});

/** Picks a currency in the converter's searchable list by typing (a code or part of a name) and Enter. */
async function pickCurrency(converter: Locator, label: "From" | "To", typed: string, code = typed) {
  const field = converter.getByRole("combobox", { name: label, exact: true });
  await field.click();
  await field.fill(typed);
  await converter.getByRole("option").first().waitFor();
  await field.press("Enter");
  await expect(field).toHaveAttribute("data-value", code);
}
