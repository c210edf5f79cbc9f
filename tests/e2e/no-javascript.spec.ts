import type { APIRequestContext, Page } from "@playwright/test";
import { formatRateText } from "@/components/rates/amount";
import { todayInCaracas } from "@/components/rates/rate-range";
import { formatDay, formatRate } from "@/components/ui/format";
import { bankDate } from "../support/workbooks";
import { apiUser, startApiBuild, waitForBuildStatus } from "./api";
import { expect, registerThroughHeader, screenshotToLookAt, test } from "./fixtures";
import { importWorkbook } from "./workbook-rates";

/**
 * Every page with scripts off, as a browser without JavaScript (or whose scripts failed to load) shows it:
 * nothing says "Loading" or "Checking your session" forever. What the server can read is in the first HTML (the
 * rates, their change, the table, the converter's answer, the builds, the price list's rates, the API's
 * operations, a build's state); what only a script can do says so plainly.
 */
// Whole words: a build "descargando" (checking out) is no loading state.
const LOADING = /\bLoading\b|\bCargando\b|Checking your session|Verificando su sesión/i;

const WORDS = {
  es: {
    signInNeedsScript: "Entrar requiere JavaScript",
    signIn: "Iniciar sesión",
    signInToAct: "Inicie sesión para usar esta acción.",
    latest: "Tasa del día",
    history: "Histórico de tasas",
    converter: "Calculadora",
    versus: "frente al",
    chartNeedsScript: "El gráfico necesita JavaScript",
    builds: "Builds",
    prices: "Lista de precios",
    ratesInForce: "Tasas BCV en vigor hoy:",
    listNeedsScript: "La lista se guarda en este navegador: verla y cambiarla necesita JavaScript.",
    add: "Agregar",
    docs: "Documentación de la API",
    docsNeedsScript: "El explorador interactivo necesita JavaScript.",
    buildNeedsScript: "Seguir este build en vivo",
    failed: "fallido",
    stageFailed: "fallida",
    valueDate: "Fecha valor",
  },
  en: {
    signInNeedsScript: "Sign-in needs JavaScript",
    signIn: "Sign in",
    signInToAct: "Sign in to use this action.",
    latest: "Latest rate",
    history: "Rate history",
    converter: "Converter",
    versus: "vs",
    chartNeedsScript: "The chart needs JavaScript",
    builds: "Builds",
    prices: "Price list",
    ratesInForce: "BCV rates in force today:",
    listNeedsScript: "The list is kept in this browser: showing and changing it needs JavaScript.",
    add: "Add",
    docs: "API documentation",
    docsNeedsScript: "The interactive explorer needs JavaScript.",
    buildNeedsScript: "Following this build live",
    failed: "failed",
    stageFailed: "failed",
    valueDate: "Value date",
  },
} as const;

/**
 * The dollar and the euro on a date no other spec stores, with an earlier dollar, so that whatever is the latest
 * has a change and both price list currencies have a rate in force. Stored again by each test that reads rates
 * (an import of the same rates changes nothing).
 */
async function storeRates(request: APIRequestContext) {
  await importWorkbook(request, [
    { name: "2025-11-04", fechaValor: bankDate("2025-11-04"), rows: [["USD", 221.75, 221.75]] },
    {
      name: "2025-11-06",
      fechaValor: bankDate("2025-11-06"),
      rows: [
        ["USD", 222.5, 222.5],
        ["EUR", 257.125, 257.125],
      ],
    },
  ]);
}

/** Screenshots to look at: a Spanish phone in the dark, an English desktop in the light. */
async function lookAt(page: Page, language: "es" | "en", name: string) {
  const [width, height, colorScheme] = language === "es" ? [390, 844, "dark"] : [1440, 960, "light"];
  await page.setViewportSize({ width: width as number, height: height as number });
  await page.emulateMedia({ colorScheme: colorScheme as "dark" | "light" });
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width as number);
  await screenshotToLookAt(page, `no-js-${name}-${language}`, { fullPage: true });
}

/** What a person reads: the page's rendered text (nothing hidden by CSS), with no loading words left in it. */
async function expectNothingLoading(page: Page) {
  // biome-ignore lint/performance/useDomNodeTextContent: what CSS hides where scripts do not run is not read, as a person would not.
  expect(await page.locator("body").innerText()).not.toMatch(LOADING);
}

test.describe("Pages without JavaScript", () => {
  test.use({ javaScriptEnabled: false });

  for (const [language, locale] of [
    ["es", "es-VE"],
    ["en", "en-US"],
  ] as const) {
    const words = WORDS[language];

    test.describe(`in ${locale}`, () => {
      test.use({ locale });

      test("the rates show the rate, its change, the table and the converter's answer; the console its builds", {
        tag: "@rates",
      }, async ({ page, request }) => {
        await storeRates(request);
        const latest = (await (await request.get("/rates/?in_force=true&include=change")).json()) as {
          dollar: number;
          value_date: string;
          previous: { date: string } | null;
        };
        const builds = (await (await request.get("/builds?limit=100")).json()) as { builds: { build_id: string }[] };
        // The whole history, so the table has the latest rate whatever its date.
        await page.goto("/?range=all");
        await expectNothingLoading(page);

        const card = page.getByRole("region", { name: words.latest });
        await expect(page.getByTestId("latest-rate")).toHaveText(formatRate(latest.dollar, language));
        await expect(card.getByTestId("latest-rate-change")).toContainText(
          `${words.versus} ${formatDay(latest.previous!.date, language)}`,
        );

        const history = page.getByRole("region", { name: words.history });
        await expect(history.getByRole("table").locator("tbody tr").first()).toContainText(
          formatDay(latest.value_date, language),
        );
        await expect(history.getByText(words.chartNeedsScript)).toBeVisible();

        const converter = page.getByRole("region", { name: words.converter });
        await expect(converter.getByTestId("conversion-result")).toContainText("100 USD =");

        await lookAt(page, language, "rates");

        // The builds console's panel and its counters: the builds GET /builds listed before the page was asked for.
        await page.goto("/builds");
        await expectNothingLoading(page);
        await expect(page.getByTestId("counter-total")).toHaveText(/^\d+\+?$/);
        const panel = page.getByRole("region", { name: words.builds, exact: true });
        if (builds.builds.length > 0) {
          await expect(panel).toContainText(builds.builds[0].build_id.slice(0, 8));
        }
        await expect(panel.getByText(words.signInToAct)).toBeVisible();
        await lookAt(page, language, "builds");
      });

      test("the header says signing in needs JavaScript, and names who is signed in", async ({ page, browser }) => {
        await page.goto("/");
        const header = page.getByRole("banner");
        await expect(header.getByText(words.signInNeedsScript)).toBeVisible();
        await expect(header.getByRole("button", { name: words.signIn })).toBeHidden();
        await expectNothingLoading(page);

        // Signed in where scripts ran, then looked at without them: the first HTML names the account.
        const withScripts = await browser.newContext({ javaScriptEnabled: true, locale: "en-US" });
        const signingIn = await withScripts.newPage();
        await signingIn.goto(page.url());
        const email = await registerThroughHeader(signingIn);
        const storageState = await withScripts.storageState();
        await withScripts.close();
        const signedIn = await browser.newContext({ javaScriptEnabled: false, locale, storageState });
        try {
          const again = await signedIn.newPage();
          await again.goto(page.url());
          await expect(again.getByRole("banner").getByText(email)).toBeVisible();
          await expect(again.getByRole("banner").getByText(words.signInNeedsScript)).toBeHidden();
          await expectNothingLoading(again);
          await lookAt(again, language, "signed-in");
        } finally {
          await signedIn.close();
        }
      });

      test("the price list shows today's rates and says the list needs JavaScript", {
        tag: "@rates",
      }, async ({ page, request }) => {
        await storeRates(request);
        const today = todayInCaracas();
        const inForce = async (currency: string) =>
          (await (await request.get(`/convert?amount=1&from=${currency}&to=VES&date=${today}`)).json()) as {
            rate: string;
            date: string;
          };
        const [usd, eur] = [await inForce("USD"), await inForce("EUR")];
        await page.goto("/prices");
        await expectNothingLoading(page);
        const list = page.getByRole("region", { name: words.prices });
        await expect(list.getByTestId("price-list-rates")).toHaveText(
          `${words.ratesInForce} 1 USD = Bs. ${formatRateText(usd.rate, language)} (${words.valueDate.toLowerCase()} ${formatDay(usd.date, language)}) · ` +
            `1 EUR = Bs. ${formatRateText(eur.rate, language)} (${words.valueDate.toLowerCase()} ${formatDay(eur.date, language)})`,
        );
        await expect(list.getByText(words.listNeedsScript)).toBeVisible();
        // A form that does nothing without scripts is not offered.
        await expect(list.getByRole("button", { name: words.add, exact: true })).toBeHidden();
        await lookAt(page, language, "prices");
      });

      test("/docs lists the API's operations and where its description is", async ({ page }) => {
        await page.goto("/docs");
        await expectNothingLoading(page);
        await expect(page.getByRole("heading", { level: 1, name: words.docs })).toBeVisible();
        await expect(page.getByText(words.docsNeedsScript)).toBeVisible();
        await expect(page.getByRole("link", { name: "/openapi.json" })).toHaveAttribute("href", "/openapi.json");
        const rates = page.getByRole("region", { name: "Rates" });
        await expect(rates.getByRole("listitem").filter({ hasText: /^GET \/convert / })).toBeVisible();
        const builds = page.getByRole("region", { name: "Builds" });
        await expect(builds.getByRole("listitem").filter({ hasText: /^POST \/builds / })).toBeVisible();
        await lookAt(page, language, "docs");
      });

      test("/embed shows the rate card", { tag: "@rates" }, async ({ page, request }) => {
        await storeRates(request);
        const latest = (await (await request.get("/rates/?in_force=true")).json()) as { dollar: number };
        await page.goto(`/embed?currency=USD&lang=${language}`);
        await expectNothingLoading(page);
        await expect(page.locator("body")).toContainText(formatRateText(String(latest.dollar), language));
        await expect(page.locator("body")).toContainText(words.valueDate);
      });

      test("a build's address shows its state and its stages' logs", { tag: "@builds" }, async ({ page, request }) => {
        const owner = await apiUser(request, "no-js");
        const buildId = await startApiBuild(request, owner.headers, ["alpha", "broken"]);
        await waitForBuildStatus(request, buildId, "failed");
        const build = (await (await request.get(`/builds/${buildId}`)).json()) as {
          stages: { name: string; status: string; started_at: string | null }[];
        };

        await page.goto(`/builds/${buildId}`);
        await expect(page).toHaveURL(new RegExp(`/builds\\?build=${buildId}$`));
        await expectNothingLoading(page);
        const shown = page.getByRole("region", { name: `Build ${buildId.slice(0, 8)}` });
        await expect(shown.getByText(words.buildNeedsScript)).toBeVisible();
        await expect(shown.getByRole("definition").first()).toHaveText(words.failed);
        const failedStage = build.stages.find((stage) => stage.status === "failed")!;
        const line = shown.getByRole("listitem").filter({ hasText: failedStage.name });
        await expect(line).toContainText(words.stageFailed);
        const log = await request.get((await line.getByRole("link").getAttribute("href"))!);
        expect(log.status()).toBe(200);
        // The builds table lists it too.
        await expect(page.getByRole("region", { name: words.builds, exact: true }).getByRole("table")).toContainText(
          buildId.slice(0, 8),
        );
        await lookAt(page, language, "build");
      });
    });
  }
});
