import { formatRateText } from "@/components/rates/amount";
import { todayInCaracas } from "@/components/rates/rate-range";
import { formatDay } from "@/components/ui/format";
import { bankDate, makeWorkbook } from "../support/workbooks";
import { expect, screenshotToLookAt, test } from "./fixtures";
import { adminHeaders } from "./workbook-rates";

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
    const workbook = makeWorkbook([
      {
        name: "2025-11-07",
        fechaValor: bankDate("2025-11-07"),
        rows: [
          ["USD", 223.5, 223.5],
          ["EUR", 258.25, 258.25],
        ],
      },
    ]);
    const imported = await request.post("/rates/import", {
      headers: await adminHeaders(request),
      multipart: { file: { name: "eur.xls", mimeType: "application/vnd.ms-excel", buffer: Buffer.from(workbook) } },
    });
    expect(imported.status(), await imported.text()).toBe(200);

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
    await expect(shown).toContainText("Bs/EUR");
    const today = todayInCaracas();
    const inForce = async (currency: string) =>
      (await (await request.get(`/convert?amount=1&from=${currency}&to=VES&date=${today}`)).json()) as {
        rate: string;
        date: string;
      };
    const [usd, eur] = [await inForce("USD"), await inForce("EUR")];
    await expect(shown).toHaveText(
      `Tasas BCV en vigor hoy: ${formatRateText(usd.rate, "es")} Bs/USD (fecha valor ${formatDay(usd.date, "es")}) · ` +
        `${formatRateText(eur.rate, "es")} Bs/EUR (fecha valor ${formatDay(eur.date, "es")})`,
    );
    const rows = list.getByTestId("price-list-table").getByRole("row");
    const expected = [
      ["Harina PAN", "1,20 USD", `Bs ${bolivares(1.2, usd.rate)}`],
      ["Queso blanco (kg)", "4,50 EUR", `Bs ${bolivares(4.5, eur.rate)}`],
      ["Aceite 1 litro", "3,75 USD", `Bs ${bolivares(3.75, usd.rate)}`],
      ["Azúcar", "1.250,00 USD", `Bs ${bolivares(1250, usd.rate)}`],
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

    // Kept in this browser: a reload shows the same list; an item goes with its button.
    await page.reload();
    await expect(rows).toHaveCount(5);
    await list.getByRole("button", { name: "Quitar Aceite 1 litro" }).click();
    await page.reload();
    await expect(rows).toHaveCount(4);
    await expect(list).not.toContainText("Aceite");

    // As text, to paste in a chat.
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"]);
    await list.getByRole("button", { name: "Copiar como texto" }).click();
    const text = await page.evaluate(() => navigator.clipboard.readText());
    expect(text.split("\n")).toEqual([
      `Lista de precios · ${await shown.textContent()}`,
      `Harina PAN: 1,20 USD = Bs ${bolivares(1.2, usd.rate)}`,
      `Queso blanco (kg): 4,50 EUR = Bs ${bolivares(4.5, eur.rate)}`,
      `Azúcar: 1.250,00 USD = Bs ${bolivares(1250, usd.rate)}`,
    ]);

    // Printed: the list and its rates alone, without the header, the forms or the buttons.
    await page.emulateMedia({ media: "print" });
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
