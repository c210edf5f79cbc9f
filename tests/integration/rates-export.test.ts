import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AppServer, startAppServer } from "../support/app-server";
import { openStalledPipeline } from "../support/pipelining";
import { BANK_CURRENCIES, seedRates, shiftDate } from "../support/rates";
import { MB, residentBytes } from "../support/sse";

// Ten years of every currency the bank publishes, every calendar day: 3,661 value dates x 21 currencies.
const END = "2026-11-20";
const START = shiftDate(END, -3660);
const TEN_YEARS = `start_date=${START}&end_date=${END}`;
// A value with every kind of digit the bank writes: up to 8 decimals, trailing zeros kept.
const cellValueOf = (day: number, column: number) =>
  `${(day * 31 + column * 977) % 5000}.${String((day * 7919 + column * 104_729) % 100_000_000).padStart(8, "0")}`;

const IDLE_SECONDS = 3;
let app: AppServer;
const seeded = new Map<string, string[]>();
beforeAll(async () => {
  // A reader that takes nothing for 3 s is cut off (the default is 60 s). The exports here are about streaming,
  // so the limit on exports at once is out of their way (it has its own file, rates-export-limit.test.ts).
  app = await startAppServer({ RATES_EXPORT_IDLE_SECONDS: String(IDLE_SECONDS), RATES_EXPORT_MAX_STREAMS: "100" });
  const rows = Array.from({ length: 3661 }, (_, day) => {
    const date = shiftDate(START, day);
    const values = BANK_CURRENCIES.map((_, column) => cellValueOf(day, column));
    seeded.set(date, values);
    return {
      date,
      dollar: values[0],
      others: Object.fromEntries(BANK_CURRENCIES.slice(1).map((code, index) => [code, values[index + 1]])),
    };
  });
  seedRates(app, rows);
});
afterAll(() => app?.stop());

/** RFC 4180, as a spreadsheet reads it: quoted fields may hold commas, doubled quotes and line ends. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (quoted) {
      if (char === '"' && text[index + 1] === '"') {
        field += '"';
        index++;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"') quoted = true;
    else if (char === ",") {
      row.push(field);
      field = "";
    } else if (char === "\r" && text[index + 1] === "\n") {
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
      index++;
    } else field += char;
  }
  if (field !== "" || row.length > 0) throw new Error("the last row has no CRLF");
  return rows;
}

describe("GET /rates/history as CSV and NDJSON", () => {
  it("CSV: ten years of every currency, parsed back as a spreadsheet would, every digit as stored", async () => {
    const response = await app.fetch(`/rates/history?${TEN_YEARS}&currencies=all&format=csv`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8; header=present");
    expect(response.headers.get("content-disposition")).toBe(
      `attachment; filename="bcv-rates_all_${START}_${END}.csv"`,
    );
    expect(response.headers.get("link")).toContain("https://www.bcv.org.ve/");
    const text = await response.text();
    const rows = parseCsv(text);
    expect(rows[0]).toEqual(["date", ...BANK_CURRENCIES]);
    expect(rows).toHaveLength(1 + 3661);
    // Newest first, as the JSON history.
    expect(rows[1][0]).toBe(END);
    expect(rows.at(-1)![0]).toBe(START);
    for (const row of rows.slice(1)) expect(row.slice(1), row[0]).toEqual(seeded.get(row[0]));
    // A decimal point, never a comma inside a value; nothing needed quoting.
    expect(text).not.toContain('"');
    console.info(`ten years of ${BANK_CURRENCIES.length} currencies as CSV: ${(text.length / MB).toFixed(2)} MB`);
  });

  it("CSV of a chosen few: the dollar first, then the asked codes in their order", async () => {
    const rows = parseCsv(
      await (
        await app.fetch(`/rates/history?start_date=${shiftDate(END, -2)}&end_date=${END}&currencies=EUR,CNY&format=csv`)
      ).text(),
    );
    expect(rows).toEqual([
      ["date", "USD", "EUR", "CNY"],
      ...[0, -1, -2].map((shift) => {
        const date = shiftDate(END, shift);
        const values = seeded.get(date)!;
        return [date, values[0], values[BANK_CURRENCIES.indexOf("EUR")], values[BANK_CURRENCIES.indexOf("CNY")]];
      }),
    ]);
  });

  it("names the file after what was asked and the first and last dates in it, not the range asked", async () => {
    const fileName = async (query: string) =>
      /filename="([^"]+)"/.exec(
        (await app.fetch(`/rates/history?${query}`)).headers.get("content-disposition") ?? "",
      )?.[1];
    // The range starts 30 days before the first stored date: the file starts at that date.
    expect(
      await fileName(`start_date=${shiftDate(START, -30)}&end_date=${shiftDate(START, 9)}&currencies=EUR&format=csv`),
    ).toBe(`bcv-rates_EUR_${START}_${shiftDate(START, 9)}.csv`);
    expect(await fileName(`start_date=${shiftDate(END, -5)}&end_date=${shiftDate(END, 3)}&format=csv`)).toBe(
      `bcv-rates_USD_${shiftDate(END, -5)}_${END}.csv`,
    );
    expect(await fileName(`start_date=${shiftDate(END, -5)}&end_date=${END}&currencies=EUR,CNY&format=ndjson`)).toBe(
      `bcv-rates_EUR-CNY_${shiftDate(END, -5)}_${END}.ndjson`,
    );
    // Nothing stored in the range: a header only, named after the range asked.
    expect(await fileName(`start_date=${shiftDate(START, -40)}&end_date=${shiftDate(START, -31)}&format=csv`)).toBe(
      `bcv-rates_USD_${shiftDate(START, -40)}_${shiftDate(START, -31)}.csv`,
    );
  });

  it("NDJSON (asked with Accept): each line exactly an item of the JSON history", async () => {
    const range = `start_date=${shiftDate(END, -40)}&end_date=${END}&currencies=EUR,USD,JPY`;
    const response = await app.fetch(`/rates/history?${range}`, { headers: { Accept: "application/x-ndjson" } });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/x-ndjson");
    expect(response.headers.get("vary")).toContain("Accept");
    const lines = (await response.text()).split("\n");
    expect(lines.pop()).toBe("");
    const json = await (await app.fetch(`/rates/history?${range}`)).json();
    expect(lines.map((line) => JSON.parse(line))).toEqual(json.rates);
    expect(lines[0]).toBe(JSON.stringify(json.rates[0]));
  });

  it("NDJSON of ten years of every currency: one line per value date", async () => {
    const text = await (await app.fetch(`/rates/history?${TEN_YEARS}&currencies=all&format=ndjson`)).text();
    const lines = text.trimEnd().split("\n");
    expect(lines).toHaveLength(3661);
    expect(Object.keys(JSON.parse(lines[0]).rates)).toHaveLength(BANK_CURRENCIES.length);
  });

  it("Accept chooses only when format is absent, and JSON wins a tie", async () => {
    const typeFor = async (accept: string, query = "") =>
      (await app.fetch(`/rates/history${query}`, { headers: { Accept: accept } })).headers.get("content-type");
    expect(await typeFor("text/csv")).toMatch(/^text\/csv/);
    expect(await typeFor("text/csv, */*;q=0.5")).toMatch(/^text\/csv/);
    expect(await typeFor("application/json, text/csv")).toBe("application/json");
    expect(await typeFor("text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8")).toBe("application/json");
    expect(await typeFor("application/json", "?format=csv")).toMatch(/^text\/csv/);
    expect(await typeFor("text/csv", "?format=json")).toBe("application/json");
  });

  it("refuses what it cannot serve before streaming: a bad format, include=change, too long a range", async () => {
    const problem = async (query: string, status: number) => {
      const response = await app.fetch(`/rates/history?${query}`);
      expect(response.status, query).toBe(status);
      expect(response.headers.get("content-type")).toBe("application/problem+json");
      return response.json();
    };
    expect((await problem("format=xml", 400)).errors).toEqual([
      { field: "query.format", message: 'must be "json", "csv", "ndjson" or "xlsx"' },
    ]);
    expect((await problem("format=csv&include=change", 400)).detail).toBe(
      "include=change is served with the JSON history only, not with csv.",
    );
    expect((await problem(`format=ndjson&start_date=2010-01-01&end_date=${END}`, 400)).detail).toMatch(
      /at most 3660 are served/,
    );
    expect((await problem("format=csv&currencies=XXX", 400)).detail).toContain("XXX");
  });

  it("readers that stop reading do not hold the server", async () => {
    // Ten years of every currency is 1 MB: six of them on each of three connections that never read. The
    // server answers everyone else meanwhile. (Whether the waiting exports are then cut off after
    // RATES_EXPORT_IDLE_SECONDS is shown by tests/unit/http-pulled-stream.test.ts: through `next start`, the
    // responses of a pipelining client are not always held back by its socket, so a count of the whole responses
    // it finally gets depends on the machine and was not a reliable check here.)
    const path = `/rates/history?${TEN_YEARS}&currencies=all&format=csv`;
    const copies = 6;
    const before = residentBytes(app.pid);
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, residentBytes(app.pid))), 25);
    const stalled = await Promise.all(
      [1, 2, 3].map((reader) =>
        openStalledPipeline(
          app.baseUrl,
          Array.from({ length: copies }, (_, index) => `${path}&_=${reader}-${index}`),
        ),
      ),
    );
    try {
      for (let round = 0; round < 3; round++) {
        expect((await app.fetch("/healthz")).status).toBe(200);
        const history = await app.fetch(
          `/rates/history?start_date=${shiftDate(END, -30)}&end_date=${END}&currencies=all`,
        );
        expect(history.status).toBe(200);
        expect((await history.json()).rates).toHaveLength(31);
        expect(
          parseCsv(
            await (
              await app.fetch(`/rates/history?start_date=${shiftDate(END, -9)}&end_date=${END}&format=csv`)
            ).text(),
          ),
        ).toHaveLength(11);
      }
    } finally {
      clearInterval(sampler);
    }
    console.info(
      `3 stalled connections x ${copies} exports: server RSS ${(before / MB).toFixed(0)} MB before, +${((peak - before) / MB).toFixed(1)} MB at most`,
    );
    for (const connection of stalled) {
      const received = await connection.resume();
      expect(received.startsWith("HTTP/1.1 200 OK")).toBe(true);
    }
  });
});
