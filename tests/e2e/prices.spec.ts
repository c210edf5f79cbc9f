import { formatRateText } from "@/components/rates/amount";
import { todayInCaracas } from "@/components/rates/rate-range";
import { formatDay } from "@/components/ui/format";
import { bankDate } from "../support/workbooks";
import { expect, screenshotToLookAt, test } from "./fixtures";
import { importWorkbook } from "./workbook-rates";

/** Bolívares as a Spanish price tag writes them, computed apart from the page: 1.2 x 197.2456 -> "236,69". */
const bolivares = (price: number, rate: string) =>
  new Intl.NumberFormat("es", { minimumFractionDigits: 2, maximumFractionDigits: 2, useGrouping: "always" }).format(
    price * Number(rate),
  );

/**
 * "Lista de precios": a shop's items in dollars or euros, each in bolívares at the rates in force today, typed or
 * pasted, kept in the browser, printed without the page around it, copied as text.
 */
test.describe("The price list", { tag: "@rates" }, () => {
  test.use({ locale: "es-VE" });

  test("typed and pasted items in bolívares at today's rates, kept, printed and copied as text", async ({
    page,
    request,
  }) => {
    // The dollar and the euro on a date no other spec stores; newer rates stored by others may be in force instead:
    // what is in force is asked of the API as the list is checked.
    await importWorkbook(request, [
      {
        name: "2025-11-07",
        fechaValor: bankDate("2025-11-07"),
        rows: [
          ["USD", 223.5, 223.5],
          ["EUR", 258.25, 258.25],
        ],
      },
    ]);

    await page.goto("/");
    await page.getByRole("link", { name: "Lista de precios para su negocio" }).click();
    await expect(page).toHaveURL(/\/prices$/);
    const list = page.getByRole("region", { name: "Lista de precios" });
    await expect(list.getByText("Aún no hay productos")).toBeVisible();

    await list.getByLabel("Producto", { exact: true }).fill("Harina PAN");
    await list.getByLabel("Precio", { exact: true }).fill("1,20");
    await list.getByRole("button", { name: "Agregar", exact: true }).click();
    await list.getByText("Pegar una lista").click();
    await list
      .getByLabel(/Un producto por línea/)
      .fill("Queso blanco (kg)\t4,50\tEUR\nAceite 1 litro 3,75\nsin precio\nAzúcar; 1.250");
    await list.getByRole("button", { name: "Agregar estas líneas" }).click();
    await expect(list.getByRole("alert")).toContainText("1 línea no dice un precio");
    await expect(list.getByLabel(/Un producto por línea/)).toHaveValue("sin precio");

    const shown = list.getByTestId("price-list-rates");
    await expect(shown).toContainText("1 EUR = Bs. ");
    const today = todayInCaracas();
    const inForce = async (currency: string) =>
      (await (await request.get(`/convert?amount=1&from=${currency}&to=VES&date=${today}`)).json()) as {
        rate: string;
        date: string;
      };
    const [usd, eur] = [await inForce("USD"), await inForce("EUR")];
    await expect(shown).toHaveText(
      `Tasas BCV en vigor hoy: 1 USD = Bs. ${formatRateText(usd.rate, "es")} (fecha valor ${formatDay(usd.date, "es")}) · ` +
        `1 EUR = Bs. ${formatRateText(eur.rate, "es")} (fecha valor ${formatDay(eur.date, "es")})`,
    );
    const rows = list.getByTestId("price-list-table").getByRole("row");
    const expected = [
      ["Harina PAN", "1,20 USD", `Bs. ${bolivares(1.2, usd.rate)}`],
      ["Queso blanco (kg)", "4,50 EUR", `Bs. ${bolivares(4.5, eur.rate)}`],
      ["Aceite 1 litro", "3,75 USD", `Bs. ${bolivares(3.75, usd.rate)}`],
      ["Azúcar", "1.250,00 USD", `Bs. ${bolivares(1250, usd.rate)}`],
    ];
    await expect(rows).toHaveCount(1 + expected.length);
    for (const [index, cells] of expected.entries()) {
      for (const [column, text] of cells.entries()) {
        await expect(
          rows
            .nth(index + 1)
            .getByRole("cell")
            .nth(column),
        ).toHaveText(text);
      }
    }

    // Print and copy beside the list, before the forms that make it.
    const actions = list.getByTestId("price-list-actions");
    const tableBox = await list.getByTestId("price-list-table").boundingBox();
    const actionsBox = await actions.boundingBox();
    const formBox = await list.getByLabel("Producto", { exact: true }).boundingBox();
    expect(actionsBox!.y).toBeGreaterThanOrEqual(tableBox!.y + tableBox!.height);
    expect(actionsBox!.y + actionsBox!.height).toBeLessThan(formBox!.y);
    await expect(actions.getByRole("button", { name: "Imprimir" })).toBeVisible();

    // The shop's name, optional, kept with the list.
    await list.getByLabel("Nombre del negocio (opcional)").fill("Bodega La Esquina");

    // Kept in this browser: a reload shows the same list and name; an item goes with its button.
    await page.reload();
    await expect(list.getByLabel("Nombre del negocio (opcional)")).toHaveValue("Bodega La Esquina");
    await expect(rows).toHaveCount(5);
    await list.getByRole("button", { name: "Quitar Aceite 1 litro" }).click();
    await page.reload();
    await expect(rows).toHaveCount(4);
    await expect(list).not.toContainText("Aceite");

    // As text, to paste in a chat.
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"]);
    await list.getByRole("button", { name: "Copiar como texto" }).click();
    await expect(list.getByRole("button", { name: "Copiado" })).toBeVisible();
    const text = await page.evaluate(() => navigator.clipboard.readText());
    expect(text.split("\n")).toEqual([
      "Bodega La Esquina",
      `Lista de precios · ${await shown.textContent()}`,
      `Harina PAN: 1,20 USD = Bs. ${bolivares(1.2, usd.rate)}`,
      `Queso blanco (kg): 4,50 EUR = Bs. ${bolivares(4.5, eur.rate)}`,
      `Azúcar: 1.250,00 USD = Bs. ${bolivares(1250, usd.rate)}`,
    ]);

    // Printed: the shop's name, the list and its rates (with their value dates) and the moment of printing,
    // without the header, the forms or the buttons. The browser stamps the moment as it prepares the printout.
    await expect(list.getByTestId("price-list-shop")).toBeHidden();
    await page.evaluate(() => window.dispatchEvent(new Event("beforeprint")));
    await page.emulateMedia({ media: "print" });
    await expect(list.getByTestId("price-list-shop")).toHaveText("Bodega La Esquina");
    await expect(list.getByTestId("price-list-printed")).toHaveText(/^Impreso el \d{1,2} [a-z]{3}\.?, \d{2}:\d{2}/);
    await expect(shown).toContainText(`fecha valor ${formatDay(usd.date, "es")}`);
    await expect(page.getByRole("banner")).toBeHidden();
    await expect(list.getByRole("button")).toHaveCount(0);
    await expect(list.getByLabel("Producto", { exact: true })).toBeHidden();
    await expect(shown).toBeVisible();
    await expect(rows).toHaveCount(4);
    await screenshotToLookAt(page, "prices-print", { fullPage: true });
    await page.emulateMedia({ media: "screen" });
    for (const width of [390, 1440]) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 960 });
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      await screenshotToLookAt(page, `prices-${width}`, { fullPage: true });
    }
  });
});

/**
 * A price that the page's language reads one way and the other language another ("1.250": 1250 in Spanish, 1.25
 * in English) says how it was read, as the converter does: while it is typed, and for each pasted line.
 */
test.describe("The price list says how a price that could be read two ways was read", () => {
  const cases = [
    {
      locale: "es-VE",
      region: "Lista de precios",
      price: "Precio",
      paste: "Pegar una lista",
      pasteBox: /Un producto por línea/,
      addLines: "Agregar estas líneas",
      typed: "1,250",
      typedNote: "«1,250» leído como 1,25: la coma es el separador decimal.",
      pasted: "Azúcar; 1.250\nHarina PAN; 1,20",
      pastedNote: "Azúcar · «1.250» leído como 1250: el punto separa los miles.",
    },
    {
      locale: "en-US",
      region: "Price list",
      price: "Price",
      paste: "Paste a list",
      pasteBox: /One item a line/,
      addLines: "Add these lines",
      typed: "1.250",
      typedNote: "“1.250” read as 1.25: the dot is the decimal mark.",
      pasted: "Sugar; 1,250\nFlour; 1.20",
      pastedNote: "Sugar · “1,250” read as 1250: the comma groups thousands.",
    },
  ];
  for (const words of cases) {
    test.describe(words.locale, () => {
      test.use({ locale: words.locale });

      test(`typed "${words.typed}" and pasted lines`, async ({ page }) => {
        await page.goto("/prices");
        const list = page.getByRole("region", { name: words.region });
        const price = list.getByLabel(words.price, { exact: true });
        await price.fill(words.typed);
        await expect(list.getByTestId("amount-reading")).toHaveText(words.typedNote);
        const width = words.locale === "es-VE" ? 390 : 1440;
        await page.setViewportSize({ width, height: 900 });
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
        await screenshotToLookAt(page, `prices-reading-${width}`, { fullPage: true });
        // A price with one reading says nothing.
        await price.fill("12");
        await expect(list.getByTestId("amount-reading")).toHaveCount(0);

        await list.getByText(words.paste, { exact: true }).click();
        await list.getByLabel(words.pasteBox).fill(words.pasted);
        await list.getByRole("button", { name: words.addLines }).click();
        // Only the line that could be read otherwise is named.
        await expect(list.getByTestId("pasted-readings").getByTestId("amount-reading")).toHaveText([words.pastedNote]);
      });
    });
  }
});
