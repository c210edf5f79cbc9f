import { expect, type APIRequestContext } from "@playwright/test";
import { bankDate, makeWorkbook } from "../support/workbooks";

/**
 * Stores dollar rates of any past date by importing a workbook laid out like the bank's (POST /rates/import):
 * the home page, through the stand-in, gives only value dates near today, as the real one does.
 * `dollar` as the bank writes it ("240,12345678"). The request is the page's (its session) or carries `headers`.
 */
export async function importRates(
  request: APIRequestContext,
  rates: { date: string; dollar: string }[],
  headers: Record<string, string> = {},
) {
  const workbook = makeWorkbook(
    rates.map((rate) => {
      const ask = Number(rate.dollar.replaceAll(".", "").replace(",", "."));
      return { name: rate.date, fechaValor: bankDate(rate.date), rows: [["USD", ask, ask]] as [string, number, number][] };
    }),
  );
  const response = await request.post("/rates/import", {
    headers,
    multipart: { file: { name: "rates.xls", mimeType: "application/vnd.ms-excel", buffer: Buffer.from(workbook) } },
  });
  expect(response.status(), await response.text()).toBe(200);
}
