import type { Locator, Page } from "@playwright/test";
import { bankDate, makeWorkbook } from "../support/workbooks";
import { storeRates } from "./api";
import { expect, test } from "./fixtures";
import { adminHeaders } from "./workbook-rates";

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

  /** The converter's words in each language: its panel's name and its fields' labels. */
  const words = {
    es: { panel: "Calculadora", date: "Fecha", amount: "Monto" },
    en: { panel: "Converter", date: "Date", amount: "Amount" },
  };

  /** The converter at the rates of 2025-10-14 (1 USD = 197.2456 VES), asked by date whatever else is stored. */
  async function openConverter(page: Page, language: "es" | "en") {
    await page.goto("/");
    const converter = page.getByRole("region", { name: words[language].panel });
    const answered = page.waitForResponse((r) => r.url().includes("/convert?") && r.url().includes("date=2025-10-14"));
    await converter.getByLabel(words[language].date, { exact: true }).fill("2025-10-14");
    await answered;
    return { converter, amount: converter.getByLabel(words[language].amount, { exact: true }) };
  }

  /** Types an amount and answers the amount the converter sent for it. */
  async function convert(page: Page, amount: Locator, typed: string) {
    const asked = page.waitForRequest((r) => r.url().includes("/convert?"));
    await amount.fill(typed);
    return new URL((await asked).url()).searchParams.get("amount");
  }

  test.describe("in Spanish (es-VE)", () => {
    test.use({ locale: "es-VE" });

    test("reads 50.000 as fifty thousand and 1.234,56 with a decimal comma, answers as Spanish writes, and says how", async ({
      page,
      request,
    }) => {
      await storeRates(request, [{ date: "2025-10-14", dollar: "197,2456" }]);
      const { converter, amount } = await openConverter(page, "es");
      await expect(converter.getByText("Escriba 1.234,56 o 50.000")).toBeVisible();
      expect(await convert(page, amount, "50.000")).toBe("50000");
      const result = converter.getByTestId("conversion-result");
      await expect(result).toContainText("50.000 USD = 9.862.280,00 VES");
      await expect(result).toContainText("1 USD = 197,2456 VES");
      await expect(result).toContainText("Tasas del 14 oct 2025");
      await expect(converter.getByTestId("amount-reading")).toHaveText(
        "«50.000» leído como 50000: el punto separa los miles.",
      );

      expect(await convert(page, amount, "1.234,56")).toBe("1234.56");
      await expect(result).toContainText("1.234,56 USD = 243.511,53 VES");
      await expect(converter.getByTestId("amount-reading")).toHaveText(
        "«1.234,56» leído como 1234,56: la coma es el separador decimal.",
      );

      // A decimal comma alone is the Spanish way: nothing to explain.
      expect(await convert(page, amount, "35,50")).toBe("35.5");
      await expect(result).toContainText("35,5 USD = 7.002,22 VES");
      await expect(converter.getByTestId("amount-reading")).toHaveCount(0);

      // The result copied as a line to paste in a chat.
      await page.context().grantPermissions(["clipboard-read", "clipboard-write"]);
      await result.getByRole("button", { name: "Copiar" }).click();
      await expect(result.getByRole("button", { name: "Copiado" })).toBeVisible();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(
        "35,5 USD = 7.002,22 VES · BCV, 14 oct 2025",
      );
    });
  });

  test.describe("in English (en-US)", () => {
    test.use({ locale: "en-US" });

    test("reads 50.000 as fifty with a decimal point and 1.234,56 by its last mark, and says how", async ({
      page,
      request,
    }) => {
      await storeRates(request, [{ date: "2025-10-14", dollar: "197,2456" }]);
      const { converter, amount } = await openConverter(page, "en");
      expect(await convert(page, amount, "50.000")).toBe("50");
      const result = converter.getByTestId("conversion-result");
      await expect(result).toContainText("50 USD = 9,862.28 VES");
      await expect(result).toContainText("Rates of Oct 14, 2025");
      await expect(converter.getByTestId("amount-reading")).toHaveText(
        "“50.000” read as 50: the dot is the decimal mark.",
      );

      expect(await convert(page, amount, "1.234,56")).toBe("1234.56");
      await expect(result).toContainText("1,234.56 USD = 243,511.53 VES");
      await expect(converter.getByTestId("amount-reading")).toHaveText(
        "“1.234,56” read as 1234.56: the comma is the decimal mark.",
      );

      expect(await convert(page, amount, "50,000")).toBe("50000");
      await expect(result).toContainText("50,000 USD = 9,862,280.00 VES");
      await expect(converter.getByTestId("amount-reading")).toHaveText(
        "“50,000” read as 50000: the comma groups thousands.",
      );
    });
  });

  test("converts from the currency chosen in the rate card, and follows it", async ({ page, request }) => {
    // The euro on a date no other spec uses: the converter offers only stored currencies.
    const workbook = makeWorkbook([
      {
        name: "2023-08-09",
        fechaValor: bankDate("2023-08-09"),
        rows: [
          ["USD", 5.05, 5.05],
          ["EUR", 5.33, 5.33],
        ],
      },
    ]);
    const imported = await request.post("/rates/import", {
      headers: await adminHeaders(request),
      multipart: { file: { name: "eur.xls", mimeType: "application/vnd.ms-excel", buffer: Buffer.from(workbook) } },
    });
    expect(imported.status(), await imported.text()).toBe(200);

    await page.goto("/");
    const converter = page.getByRole("region", { name: "Converter" });
    const from = converter.getByRole("combobox", { name: "From", exact: true });
    await expect(from).toHaveAttribute("data-value", "USD");
    const card = page.getByRole("region", { name: "Latest rate" });
    const asked = page.waitForRequest(
      (r) => r.url().includes("/convert?") && new URL(r.url()).searchParams.get("from") === "EUR",
    );
    await card.getByRole("combobox").click();
    await card.getByRole("combobox").fill("EUR");
    await page.keyboard.press("Enter");
    await asked;
    await expect(from).toHaveAttribute("data-value", "EUR");

    // A shared link to the euro opens the converter on it too.
    await page.goto("/?currency=EUR");
    await expect(converter.getByRole("combobox", { name: "From", exact: true })).toHaveAttribute("data-value", "EUR");
  });

  test("on a phone the result sits right under the amount, in sight with the keyboard up", async ({
    page,
    request,
  }) => {
    await storeRates(request, [{ date: "2025-10-14", dollar: "197,2456" }]);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto("/");
    const converter = page.getByRole("region", { name: "Converter" });
    const amount = converter.getByLabel("Amount", { exact: true });
    await amount.fill("250");
    const result = converter.getByTestId("conversion-result");
    await expect(result).toContainText("250 USD =");
    await amount.scrollIntoViewIfNeeded();
    const field = (await amount.boundingBox())!;
    const shown = (await result.boundingBox())!;
    // Under the field and its hint: an on-screen keyboard leaves about the top half of an 844 px screen.
    expect(shown.y - (field.y + field.height)).toBeLessThan(60);
    expect(shown.y + 40 - field.y).toBeLessThan(844 / 2);
  });
});
