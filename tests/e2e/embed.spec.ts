import http from "node:http";
import type { AddressInfo } from "node:net";
import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { bankDate } from "../support/workbooks";
import { expect, inEachScheme, screenshotToLookAt, test } from "./fixtures";
import { importWorkbook } from "./workbook-rates";

async function axeViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page })
    .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"])
    .analyze();
  return results.violations.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).join(", ")})`);
}

/**
 * The rate on a shop's own site: the snippets copied from the dashboard's rate card, pasted into a page of
 * another origin, show the badge and the card with the stored rate; only the card's page may be framed.
 */
test.describe("The badge and the card on a shop's site", { tag: "@rates" }, () => {
  test.use({ locale: "es-VE" });
  let shop: http.Server | undefined;
  test.afterEach(() => {
    shop?.close();
    shop = undefined;
  });

  test("copied from the dashboard, they show the stored rate on another site, which may frame only the card", async ({
    page,
    request,
  }) => {
    // The Nicaraguan córdoba on a date no other spec stores, after every workbook's: its newest rate is this one.
    // A sheet of the bank always has the dollar.
    await importWorkbook(request, [
      {
        name: "2025-11-05",
        fechaValor: bankDate("2025-11-05"),
        rows: [
          ["USD", 221.5, 221.5],
          ["NIO", 6.0123, 6.0123],
        ],
      },
    ]);

    await page.context().grantPermissions(["clipboard-read", "clipboard-write"]);
    // The rate card leads to the integrators' page, with the currency it shows.
    await page.goto("/?currency=NIO");
    await page
      .getByRole("region", { name: "Tasa del día" })
      .getByRole("link", { name: "Poner esta tasa en su sitio web" })
      .click();
    await expect(page).toHaveURL(/\/developers\?currency=NIO#embed$/);
    const card = page.getByRole("region", { name: "La tasa en su sitio web" });
    const snippets = card.getByTestId("embed-snippets");
    await expect(snippets.getByRole("img", { name: "Tasa BCV: córdoba nicaragüense" })).toBeVisible();
    await expect(snippets.getByTestId("embed-terms").getByRole("link", { name: "términos del banco" })).toHaveAttribute(
      "href",
      "https://www.bcv.org.ve/terminos-condiciones",
    );
    const copied: string[] = [];
    for (const [index, kind] of ["Insignia", "Tarjeta"].entries()) {
      // The page came by a full load: a click before React has hydrated the button does nothing, so click again
      // until this snippet is on the clipboard (written asynchronously).
      await expect(async () => {
        await snippets.getByRole("button", { name: "Copiar el código" }).nth(index).click();
        await expect
          .poll(() => page.evaluate(() => navigator.clipboard.readText()), { message: kind, timeout: 2_000 })
          .toContain(`${new URL(page.url()).origin}/${kind === "Insignia" ? "rates/badge.svg" : "embed"}?`);
      }).toPass();
      copied.push(await page.evaluate(() => navigator.clipboard.readText()));
    }
    expect(copied[1]).toContain("/embed?currency=NIO&lang=es");

    // The shop's page, served from another origin: both snippets as pasted, and the dashboard itself in a frame,
    // which must not show.
    const app = new URL(page.url()).origin;
    const shopPage = `<!doctype html><html lang="es"><title>Mi tienda</title><main><h1>Mi tienda</h1>
<p>${copied[0]}</p>${copied[1]}
<iframe src="${app}/" title="El panel" width="320" height="150"></iframe></main>`;
    shop = http.createServer((_request, response) => {
      response.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
      response.end(shopPage);
    });
    const listening = shop;
    await new Promise<void>((resolve) => listening.listen(0, "127.0.0.1", resolve));
    await page.goto(`http://127.0.0.1:${(listening.address() as AddressInfo).port}/`);
    const badge = page.getByRole("img", { name: "Tasa BCV: córdoba nicaragüense" });
    await expect
      .poll(() => badge.evaluate((image: HTMLImageElement) => image.complete && image.naturalWidth))
      .toBeGreaterThan(100);
    const embedded = page.frameLocator('iframe[src*="/embed"]');
    await expect(embedded.locator(".rate")).toHaveText("Bs. 6,0123");
    await expect(embedded.getByText("Bolívares por córdoba nicaragüense")).toBeVisible();
    await expect(embedded.getByText("Fecha valor: 5 nov 2025")).toBeVisible();
    await expect(embedded.getByRole("link", { name: "Banco Central de Venezuela" })).toHaveAttribute(
      "href",
      "https://www.bcv.org.ve/",
    );
    // The dashboard refuses to be framed: its frame holds the browser's error page, not the dashboard.
    const frames = page.frames().map((frame) => frame.url());
    expect(frames).toContain(`${app}/embed?currency=NIO&lang=es`);
    expect(frames).not.toContain(`${app}/`);

    for (const width of [390, 1440]) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 960 });
      await inEachScheme(page, async (scheme) => {
        await screenshotToLookAt(page, `shop-${width}-${scheme}`);
      });
    }
    // The card on its own, as a screen reader and axe find it.
    await page.goto(`${app}/embed?currency=NIO&lang=es`);
    await inEachScheme(page, async (scheme) => {
      expect(await axeViolations(page), `/embed, ${scheme}`).toEqual([]);
    });

    // The card's colours follow theme=, not the visitor's system: light by default, even in dark mode; auto
    // follows the system.
    const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    const WHITE = "rgb(255, 255, 255)";
    const SLATE_900 = "rgb(15, 23, 42)";
    await page.emulateMedia({ colorScheme: "dark" });
    const expected: [string, string][] = [
      ["", WHITE],
      ["&theme=light", WHITE],
      ["&theme=dark", SLATE_900],
      ["&theme=auto", SLATE_900],
    ];
    for (const [theme, colour] of expected) {
      await page.goto(`${app}/embed?currency=NIO&lang=es${theme}`);
      expect(await background(), theme || "no theme").toBe(colour);
      if (theme === "&theme=dark") expect(await axeViolations(page), "/embed, theme=dark").toEqual([]);
    }
    await page.emulateMedia({ colorScheme: "light" });
    await page.goto(`${app}/embed?currency=NIO&lang=es&theme=auto`);
    expect(await background()).toBe(WHITE);
  });
});
