import fs from "node:fs";
import AxeBuilder from "@axe-core/playwright";
import * as XLSX from "@e965/xlsx";
import type { Page } from "@playwright/test";
import { formatDay, formatRate } from "@/components/ui/format";
import type { Locale } from "@/i18n/locale";
import { apiUser, storeRates } from "./api";
import { expect, inEachScheme, PASSWORD, screenshotToLookAt, test, waitUntilAppAnswers } from "./fixtures";

/**
 * Spanish for a browser whose first language is Spanish (es-VE here), English otherwise (en-US), switched in
 * the header and kept in a cookie; the URL never names the language and the API's JSON never changes with it.
 */

const words = {
  es: { latest: "Tasa del día", converter: "Calculadora", history: "Histórico de tasas", switchTo: "English" },
  en: { latest: "Latest rate", converter: "Converter", history: "Rate history", switchTo: "Español" },
};

/** The dollar rate in force today as the API gives it, `date` its value date (what the card shows). */
async function latestDollar(page: Page) {
  const response = await page.request.get("/rates/?in_force=true&currencies=USD");
  const answer = (await response.json()) as { value_date: string; rates: { USD: number } };
  return { date: answer.value_date, rates: answer.rates };
}

/**
 * An app of its own (tests/e2e/global-setup.ts), with a central bank stand-in of its own: the rate specs change
 * the latest rate and steer the run's stand-in, and these tests read the latest rate and fetch it. Theirs changes
 * only when a worker's first test here stores and fetches the same rates again, which changes no value.
 */
test.use({ appServer: "languages" });

test.beforeAll(async ({ request }) => {
  await waitUntilAppAnswers(request, "the languages spec's app");
  // Its first user is the admin, who imports the workbook below; the workers that come second are told 409.
  const admin = await request.post("/users/", { data: { email: process.env.E2E_ADMIN_EMAIL, password: PASSWORD } });
  expect([201, 409]).toContain(admin.status());
  await storeRates(request, [{ date: "2025-10-14", dollar: "197,2456" }]);
  // A fetch from the bank's stand-in: every currency of its home page, and a "Last updated" moment to show.
  const { headers } = await apiUser(request, "languages");
  expect((await request.post("/rates/", { headers })).ok()).toBe(true);
});

for (const [locale, language] of [
  ["es-VE", "es"],
  ["en-US", "en"],
] as const) {
  test.describe(`A browser in ${locale}`, () => {
    test.use({ locale });

    test("gets the first HTML already in its language and formats, without a language in the URL", async ({ page }) => {
      const latest = await latestDollar(page);
      const html = await (await page.request.get("/", { headers: { "Accept-Language": `${locale},en;q=0.5` } })).text();
      expect(html).toContain(`<html lang="${language}"`);
      expect(html).toContain(words[language].latest);
      expect(html).toContain(formatRate(latest.rates.USD, language));
      expect(html).toContain(formatDay(latest.date, language));

      await page.goto("/");
      expect(new URL(page.url()).pathname).toBe("/");
      await expect(page.locator("html")).toHaveAttribute("lang", language);
      const card = page.getByRole("region", { name: words[language].latest });
      await expect(page.getByTestId("latest-rate")).toHaveText(formatRate(latest.rates.USD, language));
      await expect(card).toContainText(formatDay(latest.date, language));
      // Moments in the viewer's zone: 24-hour in Spanish, AM/PM in English.
      const fetched = page.getByTestId("latest-rate-fetched");
      await expect(fetched).toContainText(language === "es" ? /\d{2}:\d{2}:\d{2}/ : /\d{2}:\d{2}:\d{2} [AP]M/);
      if (language === "es") await expect(fetched).not.toContainText(/[ap]\. ?m\.|AM|PM/);
      await expect(page.getByRole("region", { name: words[language].history })).toBeVisible();
      await screenshotToLookAt(page, `rates-${locale}`, { fullPage: true });
    });

    test("finds a currency by its name in either language, with or without accents", async ({ page }) => {
      await page.goto("/");
      const picker = page.getByRole("region", { name: words[language].latest }).getByRole("combobox");
      for (const typed of ["dólar", "dolar", "dollar", "US dollar", "estadounidense"]) {
        await picker.click();
        await picker.fill(typed);
        await expect(page.getByRole("option").first(), typed).toContainText("USD");
        await page.keyboard.press("Escape");
      }
      await picker.click();
      await picker.fill("euro");
      await expect(page.getByRole("option", { name: /EUR/ })).toBeVisible();
      await page.keyboard.press("Escape");
      await expect(picker).toHaveValue(language === "es" ? "USD · dólar estadounidense" : "USD · US dollar");
    });

    test("answers the API's JSON exactly as without a language", async ({ page }) => {
      for (const path of [
        "/rates/?currencies=USD",
        "/convert?amount=50000&from=USD&to=VES&date=2025-10-14",
        "/currencies",
      ]) {
        const plain = await (await page.request.get(path, { headers: { "Accept-Language": "" } })).text();
        const spoken = await page.request.get(path, {
          headers: { "Accept-Language": locale, Cookie: `lang=${language}` },
        });
        expect(spoken.headers()["content-type"]).toContain("application/json");
        expect(await spoken.text(), path).toBe(plain);
      }
    });
  });
}

test.describe("The history's files", () => {
  test.use({ locale: "es-VE" });

  test("in Spanish the workbook comes first, and opens with dates as dates and rates as numbers", async ({ page }) => {
    await page.goto("/?from=2025-10-01&to=2025-10-31");
    const history = page.getByRole("region", { name: "Histórico de tasas" });
    const links = history.getByRole("link", { name: /^Descargar/ });
    await expect(links).toHaveText(["Descargar Excel", "Descargar CSV"]);
    const [download] = await Promise.all([page.waitForEvent("download"), links.first().click()]);
    expect(download.suggestedFilename()).toMatch(/^bcv-rates_USD_2025-10-\d\d_2025-10-\d\d\.xlsx$/);
    const book = XLSX.read(fs.readFileSync(await download.path()), { cellDates: true });
    // A Spanish reader's workbook: the sheet and the date column in Spanish, the codes as in every language.
    expect(book.SheetNames).toEqual(["tasas"]);
    const rows = XLSX.utils.sheet_to_json<unknown[]>(book.Sheets.tasas, { header: 1, raw: true });
    expect(rows[0]).toEqual(["fecha", "USD"]);
    expect(rows).toContainEqual([new Date("2025-10-14T00:00:00Z"), 197.2456]);
  });

  test.describe("in English", () => {
    test.use({ locale: "en-US" });
    test("the CSV comes first", async ({ page }) => {
      await page.goto("/?from=2025-10-01&to=2025-10-31");
      const history = page.getByRole("region", { name: "Rate history" });
      await expect(history.getByRole("link", { name: /^Download/ })).toHaveText(["Download CSV", "Download Excel"]);
    });
  });
});

test.describe("The language switch", () => {
  test.use({ locale: "es-VE" });

  test("turns the page to English and back, keeps the choice in a cookie, and leaves the URL as it is", async ({
    page,
    context,
  }) => {
    await page.goto("/?range=90d");
    await expect(page.locator("html")).toHaveAttribute("lang", "es");
    const latest = await latestDollar(page);
    await page.getByRole("banner").getByRole("button", { name: "English" }).click();
    await expect(page.locator("html")).toHaveAttribute("lang", "en");
    await expect(page.getByRole("region", { name: "Latest rate" })).toBeVisible();
    await expect(page.getByTestId("latest-rate")).toHaveText(formatRate(latest.rates.USD, "en"));
    expect(new URL(page.url()).pathname + new URL(page.url()).search).toBe("/?range=90d");
    expect((await context.cookies()).find((cookie) => cookie.name === "lang")?.value).toBe("en");

    // Kept: a reload, or any page, comes in English although the browser asks for Spanish.
    await page.reload();
    await expect(page.locator("html")).toHaveAttribute("lang", "en");
    await page.goto("/docs");
    await expect(page.locator("html")).toHaveAttribute("lang", "en");
    await page.goto("/");
    await page.getByRole("banner").getByRole("button", { name: "Español" }).click();
    await expect(page.getByRole("region", { name: "Tasa del día" })).toBeVisible();
    await expect(page.getByRole("banner").getByRole("button", { name: "English" })).toBeVisible();
  });
});

/** WCAG 2.2 A and AA violations on what is on screen now, each named with the elements it concerns. */
async function axeViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page })
    .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"])
    .analyze();
  return results.violations.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).join(", ")})`);
}

for (const [locale, language] of [
  ["es-VE", "es"],
  ["en-US", "en"],
] as const satisfies readonly (readonly [string, Locale])[]) {
  for (const width of [390, 1440]) {
    test(`axe finds nothing on the fronts in ${locale} at ${width} px, light and dark`, async ({
      browser,
      baseURL,
    }) => {
      test.setTimeout(300_000);
      const context = await browser.newContext({ locale, viewport: { width, height: width === 390 ? 844 : 960 } });
      const page = await context.newPage();
      await page.goto(baseURL!);
      await expect(page.getByRole("region", { name: words[language].latest })).toBeVisible();
      await expect(
        page.getByRole("region", { name: words[language].converter }).getByRole("combobox").first(),
      ).toBeVisible();
      // The range buttons show "30 d" on a phone and say their full names.
      const presets =
        language === "es" ? ["30 días", "90 días", "1 año", "Todo"] : ["30 days", "90 days", "1 year", "All"];
      for (const name of presets) await expect(page.getByRole("button", { name, exact: true })).toBeVisible();
      // The rate card's picker shows the dollar's whole name ("USD · dólar estadounid" was cut at 1440 px).
      const picker = page.getByRole("region", { name: words[language].latest }).getByRole("combobox");
      expect(await picker.evaluate((input: HTMLInputElement) => input.scrollWidth <= input.clientWidth)).toBe(true);
      // Spanish words are longer: nothing may stick out of a phone's screen (the header did).
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      await inEachScheme(page, async (scheme) => {
        expect(await axeViolations(page), `${locale}, ${width} px, ${scheme}`).toEqual([]);
        await screenshotToLookAt(page, `rates-${locale}-${width}-${scheme}`, { fullPage: width === 390 });
      });
      for (const front of ["builds", "developers"]) {
        await page.goto(`${baseURL}/${front}`);
        await expect(page.getByRole("main").getByRole("region").first()).toBeVisible();
        // Loading placeholders pulse; a copy button's empty status is no loading.
        await expect(page.locator("main [role=status].animate-pulse")).toHaveCount(0);
        expect(await page.evaluate(() => document.documentElement.scrollWidth), front).toBeLessThanOrEqual(width);
        await inEachScheme(page, async (scheme) => {
          expect(await axeViolations(page), `/${front}, ${locale}, ${width} px, ${scheme}`).toEqual([]);
          await screenshotToLookAt(page, `${front}-${locale}-${width}-${scheme}`, { fullPage: width === 390 });
        });
      }
      await context.close();
    });
  }
}
