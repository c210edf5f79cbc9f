import type { Locator, Page } from "@playwright/test";
import { bankDate } from "../support/workbooks";
import { storeRates } from "./api";
import { expect, test } from "./fixtures";
import { importWorkbook } from "./workbook-rates";

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
    const amount = converter.getByLabel("Amount in USD", { exact: true });

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
    es: { panel: "Calculadora", date: "Fecha", amount: "Monto en" },
    en: { panel: "Converter", date: "Date", amount: "Amount in" },
  };

  /** The converter at the rates of 2025-10-14 (1 USD = Bs. 197.2456), asked by date whatever else is stored. */
  async function openConverter(page: Page, language: "es" | "en") {
    await page.goto("/");
    const converter = page.getByRole("region", { name: words[language].panel });
    const answered = page.waitForResponse((r) => r.url().includes("/convert?") && r.url().includes("date=2025-10-14"));
    await converter.getByLabel(words[language].date, { exact: true }).fill("2025-10-14");
    await answered;
    const box = (currency: string) => converter.getByLabel(`${words[language].amount} ${currency}`, { exact: true });
    return { converter, amount: box("USD"), bolivars: box("VES") };
  }

  /** Types an amount into a box and answers what the converter sent for it: the amount and the currencies. */
  async function convert(page: Page, box: Locator, typed: string) {
    // A bounded wait: a keystroke the page never heard of fails here, not at the test's timeout.
    const asked = page.waitForRequest((r) => r.url().includes("/convert?"), { timeout: 30_000 });
    await box.fill(typed);
    const query = new URL((await asked).url()).searchParams;
    return `${query.get("amount")} ${query.get("from")}>${query.get("to")}`;
  }

  test.describe("in Spanish (es-VE)", () => {
    test.use({ locale: "es-VE" });

    test("reads 50.000 as fifty thousand and 1.234,56 with a decimal comma, answers as Spanish writes, and says how", async ({
      page,
      request,
    }) => {
      await storeRates(request, [{ date: "2025-10-14", dollar: "197,2456" }]);
      const { converter, amount, bolivars } = await openConverter(page, "es");
      await expect(converter.getByText("Escriba 1.234,56 o 50.000 en cualquiera de las dos casillas")).toBeVisible();
      expect(await convert(page, amount, "50.000")).toBe("50000 USD>VES");
      const result = converter.getByTestId("conversion-result");
      await expect(bolivars).toHaveValue("9.862.280,00");
      await expect(result).toContainText("50.000 USD = Bs. 9.862.280,00");
      await expect(result).toContainText("1 USD = Bs. 197,2456");
      await expect(result).toContainText("Tasas del 14 oct 2025");
      await expect(converter.getByTestId("amount-reading")).toHaveText(
        "«50.000» leído como 50000: el punto separa los miles.",
      );

      expect(await convert(page, amount, "1.234,56")).toBe("1234.56 USD>VES");
      await expect(bolivars).toHaveValue("243.511,53");
      await expect(result).toContainText("1.234,56 USD = Bs. 243.511,53");
      await expect(converter.getByTestId("amount-reading")).toHaveText(
        "«1.234,56» leído como 1234,56: la coma es el separador decimal.",
      );

      // A decimal comma alone is the Spanish way: nothing to explain.
      // Echoed with the decimals typed: "35,50", not "35,5".
      expect(await convert(page, amount, "35,50")).toBe("35.5 USD>VES");
      await expect(result).toContainText("35,50 USD = Bs. 7.002,22");
      await expect(converter.getByTestId("amount-reading")).toHaveCount(0);

      // The result copied as a line to paste in a chat.
      await page.context().grantPermissions(["clipboard-read", "clipboard-write"]);
      await result.getByRole("button", { name: "Copiar" }).click();
      await expect(result.getByRole("button", { name: "Copiado" })).toBeVisible();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(
        "35,50 USD = Bs. 7.002,22 · BCV, 14 oct 2025",
      );

      // A currency sign or code beside the number, as shops write prices, is read and dropped.
      expect(await convert(page, amount, "US$ 1.250,50")).toBe("1250.5 USD>VES");
      await expect(result).toContainText("1.250,50 USD = Bs. 246.655,62");
      expect(await convert(page, amount, "100 Bs")).toBe("100 USD>VES");
      // A negative amount is said in the page's words, and not sent.
      await amount.fill("-5");
      await expect(
        converter.getByText("Escriba una cantidad positiva: el signo menos no cabe en un monto."),
      ).toBeVisible();

      // Typed in the bolívares' box, by the same rules: the dollars' box answers.
      expect(await convert(page, bolivars, "1.234,56")).toBe("1234.56 VES>USD");
      await expect(amount).toHaveValue("6,26");
      await expect(result).toContainText("Bs. 1.234,56 = 6,26 USD");
      expect(await convert(page, bolivars, "50.000")).toBe("50000 VES>USD");
      await expect(amount).toHaveValue("253,49");
      await expect(result).toContainText("Bs. 50.000 = 253,49 USD");
      await expect(converter.getByTestId("amount-reading")).toHaveText(
        "«50.000» leído como 50000: el punto separa los miles.",
      );
      // An answer reads back as itself when typed on: "253,49" and a zero is 253,49 in Spanish.
      const asked = page.waitForRequest((r) => r.url().includes("/convert?") && r.url().includes("from=USD"));
      await amount.press("End");
      await amount.pressSequentially("0");
      expect(new URL((await asked).url()).searchParams.get("amount")).toBe("253.49");
      await expect(bolivars).toHaveValue("49.999,79");
    });
  });

  test.describe("in English (en-US)", () => {
    test.use({ locale: "en-US" });

    test("reads 50.000 as fifty with a decimal point and 1.234,56 by its last mark, and says how", async ({
      page,
      request,
    }) => {
      await storeRates(request, [{ date: "2025-10-14", dollar: "197,2456" }]);
      const { converter, amount, bolivars } = await openConverter(page, "en");
      await expect(converter.getByText("Write 1,234.56 or 50,000 in either box")).toBeVisible();
      expect(await convert(page, amount, "50.000")).toBe("50 USD>VES");
      await expect(bolivars).toHaveValue("9,862.28");
      const result = converter.getByTestId("conversion-result");
      // The amount as typed, its reading said below.
      await expect(result).toContainText("50.000 USD = Bs. 9,862.28");
      await expect(result).toContainText("Rates of Oct 14, 2025");
      await expect(converter.getByTestId("amount-reading")).toHaveText(
        "“50.000” read as 50: the dot is the decimal mark.",
      );

      expect(await convert(page, amount, "1.234,56")).toBe("1234.56 USD>VES");
      await expect(result).toContainText("1,234.56 USD = Bs. 243,511.53");
      await expect(converter.getByTestId("amount-reading")).toHaveText(
        "“1.234,56” read as 1234.56: the comma is the decimal mark.",
      );

      expect(await convert(page, amount, "50,000")).toBe("50000 USD>VES");
      await expect(result).toContainText("50,000 USD = Bs. 9,862,280.00");
      await expect(converter.getByTestId("amount-reading")).toHaveText(
        "“50,000” read as 50000: the comma groups thousands.",
      );

      // Typed in the bolívares' box, by the same rules: the dollars' box answers.
      expect(await convert(page, bolivars, "50.000")).toBe("50 VES>USD");
      await expect(amount).toHaveValue("0.25");
      await expect(result).toContainText("Bs. 50.000 = 0.25 USD");
      await expect(converter.getByTestId("amount-reading")).toHaveText(
        "“50.000” read as 50: the dot is the decimal mark.",
      );
      expect(await convert(page, bolivars, "1.234,56")).toBe("1234.56 VES>USD");
      await expect(amount).toHaveValue("6.26");
      await expect(result).toContainText("Bs. 1,234.56 = 6.26 USD");
    });
  });

  test("converts from the currency chosen in the rate card, and follows it", async ({ page, request }) => {
    // The euro on a date no other spec uses: the converter offers only stored currencies.
    await importWorkbook(request, [
      {
        name: "2023-08-09",
        fechaValor: bankDate("2023-08-09"),
        rows: [
          ["USD", 5.05, 5.05],
          ["EUR", 5.33, 5.33],
        ],
      },
    ]);

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

  test("what is typed before the page's scripts run is converted once they do", async ({ page, request }) => {
    await storeRates(request, [{ date: "2025-10-14", dollar: "197,2456" }]);
    // The scripts are held back until the boxes are typed into, as on a slow phone: the form is in the first HTML.
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route("**/_next/static/chunks/*.js", async (route) => {
      await released;
      await route.continue();
    });
    await page.goto("/", { waitUntil: "domcontentloaded" });
    const converter = page.getByRole("region", { name: "Converter" });
    await converter.getByLabel("Date", { exact: true }).fill("2025-10-14");
    await converter.getByLabel("Amount in USD", { exact: true }).fill("2500");
    const asked = page.waitForRequest((r) => r.url().includes("/convert?") && r.url().includes("amount=2500"), {
      timeout: 60_000,
    });
    release();
    expect(new URL((await asked).url()).searchParams.get("date")).toBe("2025-10-14");
    await expect(converter.getByLabel("Amount in VES", { exact: true })).toHaveValue("493,114.00");
  });

  test("on a phone the answering box sits under the amount, in sight with the keyboard up", async ({
    page,
    request,
  }) => {
    await storeRates(request, [{ date: "2025-10-14", dollar: "197,2456" }]);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto("/");
    const converter = page.getByRole("region", { name: "Converter" });
    await converter.getByLabel("Date", { exact: true }).fill("2025-10-14");
    const amount = converter.getByLabel("Amount in USD", { exact: true });
    const bolivars = converter.getByLabel("Amount in VES", { exact: true });
    await amount.fill("250");
    await expect(bolivars).toHaveValue("49,311.40");
    await amount.scrollIntoViewIfNeeded();
    const field = (await amount.boundingBox())!;
    const shown = (await bolivars.boundingBox())!;
    // Only the other currency's picker between them; an on-screen keyboard leaves about the top half of an 844 px
    // screen, and both boxes fit in it.
    expect(shown.y).toBeGreaterThan(field.y + field.height);
    expect(shown.y + shown.height - field.y).toBeLessThan(844 / 2 - 100);
  });
});
