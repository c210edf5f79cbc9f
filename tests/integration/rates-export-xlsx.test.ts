import * as XLSX from "@e965/xlsx";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AppServer, sharedAppServer } from "../support/app-server";
import { seedRates, shiftDate } from "../support/rates";

// Three value dates, the middle one without a euro rate, and ten years of every day for the size of a big file.
const ROWS: { date: string; dollar: string; others: Record<string, string> }[] = [
  { date: "2025-10-14", dollar: "197.24560000", others: { EUR: "228.09086692", CNY: "27.66512345" } },
  { date: "2025-10-13", dollar: "195.2491", others: { CNY: "27.40000001" } },
  { date: "2025-10-10", dollar: "192.7897", others: { EUR: "223.63797222", CNY: "27.1" } },
];
const LONG_END = "2024-12-31";
const LONG_START = shiftDate(LONG_END, -3660);

let app: AppServer;
beforeAll(async () => {
  app = await sharedAppServer();
  seedRates(app, [
    ...ROWS,
    ...Array.from({ length: 3661 }, (_, day) => ({
      date: shiftDate(LONG_START, day),
      dollar: `${1 + day}.12345678`,
      others: { EUR: `${2 + day}.5` },
    })),
  ]);
});
afterAll(() => app?.stop());

/** The answer opened as a spreadsheet program opens it, with the library the project already uses. */
async function openWorkbook(query: string, headers: Record<string, string> = {}) {
  const response = await app.fetch(`/rates/history?${query}`, { headers });
  expect(response.status, await response.clone().text()).toBe(200);
  const book = XLSX.read(new Uint8Array(await response.arrayBuffer()), { cellDates: true, cellNF: true });
  return { response, book, sheet: book.Sheets[book.SheetNames[0]] };
}

describe("GET /rates/history?format=xlsx", () => {
  it("is a workbook laid out as the CSV: the same header, rows newest first and empty cells", async () => {
    const query = "start_date=2025-10-10&end_date=2025-10-14&currencies=EUR,CNY";
    const { response, book, sheet } = await openWorkbook(`${query}&format=xlsx`);
    expect(response.headers.get("content-type")).toBe(
      "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    );
    expect(response.headers.get("content-disposition")).toBe(
      'attachment; filename="bcv-rates_EUR-CNY_2025-10-10_2025-10-14.xlsx"',
    );
    expect(book.SheetNames).toEqual(["rates"]);

    const csv = await (await app.fetch(`/rates/history?${query}&format=csv`)).text();
    const csvRows = csv
      .trimEnd()
      .split("\r\n")
      .map((line) => line.split(","));
    const cells = XLSX.utils.sheet_to_json<unknown[]>(sheet, { header: 1, raw: true, defval: "" });
    expect(cells.length).toBe(csvRows.length);
    expect(cells[0]).toEqual(csvRows[0]);
    cells.slice(1).forEach((row, index) => {
      const [date, ...values] = csvRows[index + 1];
      expect(row[0]).toEqual(new Date(`${date}T00:00:00Z`));
      expect(row.slice(1)).toEqual(values.map((value) => (value === "" ? "" : Number(value))));
    });
  });

  it("writes dates as date cells and values as number cells, every decimal kept", async () => {
    const { sheet } = await openWorkbook("start_date=2025-10-10&end_date=2025-10-14&currencies=EUR&format=xlsx");
    expect(sheet.A2).toMatchObject({ t: "d", z: "yyyy-mm-dd", w: "2025-10-14" });
    expect(sheet.A2.v).toEqual(new Date("2025-10-14T00:00:00Z"));
    expect(sheet.B2).toMatchObject({ t: "n", v: 197.2456 });
    expect(sheet.C2).toMatchObject({ t: "n", v: 228.09086692, w: "228.09086692" });
    // The 13th has no euro rate: no cell at all, as the CSV's empty field.
    expect(sheet.C3).toBeUndefined();
    expect(sheet.B3).toMatchObject({ t: "n", v: 195.2491 });
  });

  it("names the sheet and the date column in the reader's language: the site's cookie, else Accept-Language", async () => {
    const query = "start_date=2025-10-10&end_date=2025-10-14&currencies=EUR&format=xlsx";
    const header = (sheet: XLSX.WorkSheet) => XLSX.utils.sheet_to_json<unknown[]>(sheet, { header: 1 })[0];

    const spanish = await openWorkbook(query, { "Accept-Language": "es-VE,es;q=0.9,en;q=0.8" });
    expect(spanish.book.SheetNames).toEqual(["tasas"]);
    expect(header(spanish.sheet)).toEqual(["fecha", "USD", "EUR"]);
    expect(spanish.response.headers.get("vary")).toMatch(/(^|, )Accept, Accept-Language, Cookie$/);
    // The same cells whatever the words: dates and numbers the spreadsheet writes in its own language.
    expect(spanish.sheet.A2).toMatchObject({ t: "d", w: "2025-10-14" });
    expect(spanish.sheet.C2).toMatchObject({ t: "n", v: 228.09086692 });

    // The language picked in the site's header wins over the browser's, as on the pages.
    const picked = await openWorkbook(query, { "Accept-Language": "en-US", Cookie: "theme=dark; lang=es" });
    expect(picked.book.SheetNames).toEqual(["tasas"]);
    const english = await openWorkbook(query, { "Accept-Language": "es", Cookie: "lang=en" });
    expect(english.book.SheetNames).toEqual(["rates"]);
    expect(header(english.sheet)).toEqual(["date", "USD", "EUR"]);
    // A browser whose first language is English gets English, as the pages do.
    const first = await openWorkbook(query, { "Accept-Language": "en-GB,es;q=0.9" });
    expect(header(first.sheet)).toEqual(["date", "USD", "EUR"]);

    // CSV, read by programs, keeps one header in every language.
    const spanishCsv = await app.fetch(`/rates/history?${query.replace("xlsx", "csv")}`, {
      headers: { "Accept-Language": "es" },
    });
    expect((await spanishCsv.text()).split("\r\n")[0]).toBe("date,USD,EUR");
  });

  it("holds the dollar alone without currencies, and only the header for a range without rates", async () => {
    const dollar = await openWorkbook("start_date=2025-10-10&end_date=2025-10-14&format=xlsx");
    expect(XLSX.utils.sheet_to_json(dollar.sheet, { header: 1 })[0]).toEqual(["date", "USD"]);
    const empty = await openWorkbook("start_date=2025-11-01&end_date=2025-11-05&format=xlsx");
    expect(XLSX.utils.sheet_to_json(empty.sheet, { header: 1 })).toEqual([["date", "USD"]]);
    expect(empty.response.headers.get("content-disposition")).toContain("bcv-rates_USD_2025-11-01_2025-11-05.xlsx");
  });

  it("writes ten years of a currency, while the server goes on answering other reads", async () => {
    const pending = openWorkbook(`start_date=${LONG_START}&end_date=${LONG_END}&currencies=EUR&format=xlsx`);
    // The workbook is written on a worker thread: a JSON read is answered meanwhile.
    expect((await app.fetch("/rates/history?start_date=2025-10-10&end_date=2025-10-14")).status).toBe(200);
    const { sheet } = await pending;
    const cells = XLSX.utils.sheet_to_json<unknown[]>(sheet, { header: 1, raw: true });
    expect(cells.length).toBe(1 + 3661);
    expect(cells[1]).toEqual([new Date(`${LONG_END}T00:00:00Z`), 3661.12345678, 3662.5]);
    expect(cells.at(-1)).toEqual([new Date(`${LONG_START}T00:00:00Z`), 1.12345678, 2.5]);
  });

  it("answers 400 with include=change, as the other files do", async () => {
    const response = await app.fetch("/rates/history?include=change&format=xlsx");
    expect(response.status).toBe(400);
    expect((await response.json()).errors[0]).toMatchObject({ field: "query.include" });
  });
});
