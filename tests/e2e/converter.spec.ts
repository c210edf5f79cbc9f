import type { Locator, Page } from "@playwright/test";
import { storeRates } from "./api";
import { expect, test } from "./fixtures";

/**
 * The converter shows what it sends: with rates stored, the currencies on screen are the ones in the request.
 * On a fresh install (nothing stored) it says there is nothing to convert with: blank-install.spec.ts.
 */
test.describe("The converter", { tag: "@rates" }, () => {
  test("sends the currencies it shows, converts as the amount is typed, and reads 1.234,56", async ({
    page,
    request,
  }) => {
    await storeRates(request, [{ date: "2025-10-14", dollar: "197,2456" }]);
    await page.goto("/");
    const converter = page.getByRole("region", { name: "Converter" });
    const from = converter.getByRole("combobox", { name: "From", exact: true });
    const to = converter.getByRole("combobox", { name: "To", exact: true });
    const amount = converter.getByLabel("Amount", { exact: true });

    const asked = page.waitForRequest(
      (r) => r.url().includes("/convert?") && new URL(r.url()).searchParams.get("amount") === "1234.56",
    );
    await amount.fill("1.234,56");
    const query = new URL((await asked).url()).searchParams;
    // What the pickers show is exactly what went out.
    expect(query.get("from")).toBe(await from.getAttribute("data-value"));
    expect(query.get("to")).toBe(await to.getAttribute("data-value"));
    await expect(from).toHaveValue(new RegExp(`^${query.get("from")} · `));
    await expect(to).toHaveValue(new RegExp(`^${query.get("to")} · `));
    await expect(converter.getByTestId("conversion-result")).toContainText(`1,234.56 ${query.get("from")} = `);

    // Swapping swaps both what is shown and what is sent.
    const swapped = page.waitForRequest(
      (r) => r.url().includes("/convert?") && new URL(r.url()).searchParams.get("from") === query.get("to"),
    );
    await converter.getByRole("button", { name: "Swap the currencies" }).click();
    expect(new URL((await swapped).url()).searchParams.get("to")).toBe(query.get("from"));
    await expect(from).toHaveAttribute("data-value", query.get("to")!);
  });

  /** The converter at the rates of 2025-10-14 (1 USD = 197.2456 VES), asked by date whatever else is stored. */
  async function openConverter(page: Page) {
    await page.goto("/");
    const converter = page.getByRole("region", { name: "Converter" });
    const answered = page.waitForResponse((r) => r.url().includes("/convert?") && r.url().includes("date=2025-10-14"));
    await converter.getByLabel("Date", { exact: true }).fill("2025-10-14");
    await answered;
    return converter;
  }

  /** Types an amount and answers the amount the converter sent for it. */
  async function convert(page: Page, converter: Locator, typed: string) {
    const asked = page.waitForRequest((r) => r.url().includes("/convert?"));
    await converter.getByLabel("Amount", { exact: true }).fill(typed);
    return new URL((await asked).url()).searchParams.get("amount");
  }

  test.describe("in Spanish (es-VE)", () => {
    test.use({ locale: "es-VE" });

    test("reads 50.000 as fifty thousand and 1.234,56 with a decimal comma, and says how", async ({
      page,
      request,
    }) => {
      await storeRates(request, [{ date: "2025-10-14", dollar: "197,2456" }]);
      const converter = await openConverter(page);
      expect(await convert(page, converter, "50.000")).toBe("50000");
      await expect(converter.getByTestId("conversion-result")).toContainText(/9.862.280,00|9,862,280\.00/);
      await expect(converter.getByTestId("amount-reading")).toContainText("“50.000”");
      await expect(converter.getByTestId("amount-reading")).toContainText("50000");

      expect(await convert(page, converter, "1.234,56")).toBe("1234.56");
      await expect(converter.getByTestId("conversion-result")).toContainText(/243.511,53|243,511\.53/);
      await expect(converter.getByTestId("amount-reading")).toContainText("1234,56");
    });
  });

  test.describe("in English (en-US)", () => {
    test.use({ locale: "en-US" });

    test("reads 50.000 as fifty with a decimal point and 1.234,56 by its last mark, and says how", async ({
      page,
      request,
    }) => {
      await storeRates(request, [{ date: "2025-10-14", dollar: "197,2456" }]);
      const converter = await openConverter(page);
      expect(await convert(page, converter, "50.000")).toBe("50");
      await expect(converter.getByTestId("conversion-result")).toContainText("9,862.28");
      await expect(converter.getByTestId("amount-reading")).toContainText("“50.000” read as 50");

      expect(await convert(page, converter, "1.234,56")).toBe("1234.56");
      await expect(converter.getByTestId("conversion-result")).toContainText("243,511.53");
      await expect(converter.getByTestId("amount-reading")).toContainText("1234.56");
    });
  });
});
