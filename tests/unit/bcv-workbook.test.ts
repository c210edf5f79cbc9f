import { describe, expect, it } from "vitest";
import { MAX_SHEETS, parseWorkbook, WorkbookError } from "@/lib/rates/workbook";
import { bankDate, makeWorkbook, Q1_2025, Q2_2025, Q4_2025, readWorkbook } from "../support/workbooks";

// Figures read from the bank's files with a spreadsheet program, not with the code under test.
const TODAY = "2026-11-23";

async function failure(bytes: Uint8Array): Promise<WorkbookError> {
  try {
    await parseWorkbook(bytes, TODAY);
  } catch (error) {
    expect(error).toBeInstanceOf(WorkbookError);
    return error as WorkbookError;
  }
  throw new Error("the workbook was read");
}

const sheetOf = async (file: string, name: string) => {
  const parsed = await parseWorkbook(readWorkbook(file), TODAY);
  const sheet = parsed.sheets.find((candidate) => candidate.name === name);
  if (!sheet) throw new Error(`no sheet ${name}`);
  return { parsed, sheet, rate: (code: string) => sheet.rates.find((rate) => rate.currency === code) };
};

describe("parseWorkbook on the central bank's 2025 workbooks", () => {
  it("reads the fourth quarter: 9 sheets, 21 currencies each, under the Fecha Valor", async () => {
    const { parsed, sheet, rate } = await sheetOf(Q4_2025, "13102025");
    expect(parsed.sheets).toHaveLength(9);
    expect(parsed.skipped).toEqual([]);
    expect(parsed.sheets.map((s) => s.date)).toEqual([
      "2025-10-14",
      "2025-10-13",
      "2025-10-10",
      "2025-10-09",
      "2025-10-08",
      "2025-10-07",
      "2025-10-06",
      "2025-10-03",
      "2025-10-02",
    ]);
    // Operated on the 13th, valid on the 14th: the home page printed 197,24560000 for 2025-10-14.
    expect(sheet).toMatchObject({ date: "2025-10-14", operationDate: "2025-10-13", skippedRows: [] });
    expect(sheet.rates).toHaveLength(21);
    expect(rate("USD")).toEqual({ currency: "USD", rate: "197.2456", bid: "196.752486" });
    expect(rate("EUR")).toEqual({ currency: "EUR", rate: "228.09086692", bid: "227.52063976" });
    expect(rate("JPY")).toEqual({ currency: "JPY", rate: "1.29495923", bid: "1.29172183" });
    // The bank writes MXP, the Mexican peso's code before 1993; it is MXN.
    expect(rate("MXN")).toEqual({ currency: "MXN", rate: "10.69406432", bid: "10.66732916" });
    expect(rate("MXP")).toBeUndefined();
  });

  it("reads the first quarter: 58 sheets; the Friday before carnival is valid the next Wednesday", async () => {
    const { parsed, sheet, rate } = await sheetOf(Q1_2025, "28022025");
    expect(parsed.sheets).toHaveLength(58);
    expect(new Set(parsed.sheets.flatMap((s) => s.rates.map((r) => r.currency))).size).toBe(21);
    expect(sheet).toMatchObject({ date: "2025-03-05", operationDate: "2025-02-28" });
    expect(rate("USD")?.rate).toBe("64.4844");
    expect(rate("EUR")?.rate).toBe("67.12181196");
    expect(rate("MXN")?.rate).toBe("3.15274722");
    const first = await sheetOf(Q1_2025, "02012025");
    expect(first.sheet.date).toBe("2025-01-03");
    expect(first.rate("USD")).toEqual({ currency: "USD", rate: "52.5723", bid: "52.44086925" });
  });

  it("reads the second quarter: Holy Week moves the value date five days on", async () => {
    const { parsed, sheet, rate } = await sheetOf(Q2_2025, "16042025");
    expect(parsed.sheets).toHaveLength(58);
    expect(sheet).toMatchObject({ date: "2025-04-21", operationDate: "2025-04-16" });
    expect(rate("USD")?.rate).toBe("80.9598");
    expect(rate("CNY")?.rate).toBe("11.0817307");
    expect((await sheetOf(Q2_2025, "30062025")).rate("USD")?.rate).toBe("108.1891");
  });
});

describe("parseWorkbook refuses what is not a bank workbook", () => {
  it("a truncated workbook", async () => {
    const whole = readWorkbook(Q1_2025);
    for (const length of [100_000, 2_000, 600]) {
      expect((await failure(whole.subarray(0, length))).message).toMatch(/damaged or truncated|Workbook stream/);
    }
  });

  it("a text file named .xls, and a zip (an .xlsx)", async () => {
    expect((await failure(new TextEncoder().encode("fecha,usd\n14/10/2025,197.2456\n".repeat(40)))).message).toContain(
      "not an Excel 97-2003 workbook",
    );
    expect((await failure(new Uint8Array([0x50, 0x4b, 0x03, 0x04, ...new Uint8Array(600)]))).message).toContain(
      "OLE2 signature",
    );
  });

  it("a file past the size bound, unread", async () => {
    expect((await failure(new Uint8Array(6 * 1024 * 1024))).message).toMatch(/is 6291456 bytes; at most \d+ are read/);
  });

  it("more sheets than a quarter has", async () => {
    const sheets = Array.from({ length: MAX_SHEETS + 1 }, (_, index) => ({
      name: `S${index}`,
      fechaValor: "14/10/2025",
      rows: [["USD", 1, 2]] as [string, number, number][],
    }));
    expect((await failure(makeWorkbook(sheets))).message).toContain(
      `has ${MAX_SHEETS + 1} sheets; at most ${MAX_SHEETS}`,
    );
  });

  it("a workbook with no sheet of rates", async () => {
    const bytes = makeWorkbook([{ name: "Hoja1", fechaValor: "no es fecha", rows: [] }]);
    expect((await failure(bytes)).message).toContain(
      "has no sheet with the central bank's reference rates (Hoja1: has no Fecha Valor",
    );
  });
});

describe("parseWorkbook skips what it cannot trust, sheet by sheet", () => {
  it("value dates far in the future or before the bolívar digital, values that are not plausible rates", async () => {
    const usd = (ask: number) =>
      [
        ["USD", ask * 0.99, ask],
        ["EUR", 1, 2],
      ] as [string, number, number][];
    const bytes = makeWorkbook([
      {
        name: "good",
        fechaValor: bankDate("2026-11-24"),
        rows: [...usd(236.4587), ["XXX", 1, 2], ["MXP", 12.5, 12.6]],
      },
      { name: "future", fechaValor: "31/12/9999", rows: usd(1) },
      { name: "old", fechaValor: "15/08/2018", rows: usd(1) },
      { name: "huge", fechaValor: bankDate("2026-11-20"), rows: [["USD", 1, 1e20]] },
      { name: "again", fechaValor: bankDate("2026-11-24"), rows: usd(300) },
    ]);
    const parsed = await parseWorkbook(bytes, TODAY);
    expect(parsed.sheets.map((sheet) => sheet.name)).toEqual(["good"]);
    expect(parsed.sheets[0].rates.map((rate) => rate.currency)).toEqual(["USD", "EUR", "MXN"]);
    expect(parsed.sheets[0].skippedRows).toEqual(["XXX: not a currency this service keeps"]);
    expect(parsed.skipped).toEqual([
      { sheet: "future", reason: "its Fecha Valor 9999-12-31 is more than 7 days after today (2026-11-23)" },
      { sheet: "old", reason: expect.stringContaining("is before 2021-10-01") },
      {
        sheet: "huge",
        reason: expect.stringMatching(
          /^has no readable USD row \(USD: the ask in Bs\.\/M\.E\. 100000000000000000000 has 21 digits/,
        ),
      },
      { sheet: "again", reason: "its Fecha Valor 2026-11-24 is also sheet good's, which was read" },
    ]);
  });
});
