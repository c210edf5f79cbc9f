import { type APIRequestContext, expect } from "@playwright/test";
import { bankDate, makeWorkbook } from "../support/workbooks";
import { PASSWORD } from "./fixtures";

/**
 * Stores dollar rates of any past date by importing a workbook laid out like the bank's (POST /rates/import):
 * the home page, through the stand-in, gives only value dates near today, as the real one does.
 * `dollar` as the bank writes it ("240,12345678"). Imports are for admins only: it signs in as the e2e admin
 * (registered first by the global setup).
 */
export async function importRates(request: APIRequestContext, rates: { date: string; dollar: string }[]) {
  await importWorkbook(
    request,
    rates.map((rate) => {
      const ask = Number(rate.dollar.replaceAll(".", "").replace(",", "."));
      return {
        name: rate.date,
        fechaValor: bankDate(rate.date),
        rows: [["USD", ask, ask]] as [string, number, number][],
      };
    }),
  );
}

/** Imports a workbook of these sheets (tests/support/workbooks.ts) as the e2e admin; expects 200. */
export async function importWorkbook(request: APIRequestContext, sheets: Parameters<typeof makeWorkbook>[0]) {
  const response = await request.post("/rates/import", {
    headers: await adminHeaders(request),
    multipart: {
      file: { name: "rates.xls", mimeType: "application/vnd.ms-excel", buffer: Buffer.from(makeWorkbook(sheets)) },
    },
  });
  expect(response.status(), await response.text()).toBe(200);
}

/** A bearer token of the admin the global setup registered first. */
export async function adminHeaders(request: APIRequestContext): Promise<Record<string, string>> {
  const email = process.env.E2E_ADMIN_EMAIL;
  if (!email) throw new Error("E2E_ADMIN_EMAIL is not set: run the specs through playwright.config.ts.");
  const token = await request.post("/users/token", { form: { username: email, password: PASSWORD } });
  expect(token.status()).toBe(200);
  return { Authorization: `Bearer ${((await token.json()) as { access_token: string }).access_token}` };
}
