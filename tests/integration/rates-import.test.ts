import { spawnSync } from "node:child_process";
import http from "node:http";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type AppServer, commandEnvironment, sharedAppServer } from "../support/app-server";
import { queryDatabase } from "../support/database";
import {
  BANK_CURRENCIES,
  deleteAllRates,
  rateFields,
  readAllStoredRates,
  seedRates,
  shiftDate,
  todayAtOffset,
} from "../support/rates";
import { registerAndGetToken } from "../support/users";
import { bankDate, makeWorkbook, Q1_2025, Q2_2025, Q4_2025, readWorkbook } from "../support/workbooks";

// Figures below were read from the bank's files with a spreadsheet program, not with the code under test.
let app: AppServer;
/** The first user registered, hence the admin: imports are for admins only. */
let authorization: Record<string, string>;
let adminId: number;
beforeAll(async () => {
  // Its central bank is the worker's stand-in, publishing the fixture's rates under today's date.
  app = await sharedAppServer();
  ({ authorization } = await registerAndGetToken(app));
  adminId = (await (await app.fetch("/users/me", { headers: authorization })).json()).id;
});
afterAll(() => app?.stop());
beforeEach(() => deleteAllRates(app));

const projectRoot = path.resolve(import.meta.dirname, "..", "..");

function upload(bytes: Uint8Array, name: string, headers: Record<string, string> = authorization) {
  const form = new FormData();
  form.append("file", new Blob([bytes as Uint8Array<ArrayBuffer>]), name);
  return app.fetch("/rates/import", { method: "POST", headers, body: form });
}

function uploadRaw(bytes: Uint8Array, name?: string) {
  const query = name === undefined ? "" : `?name=${encodeURIComponent(name)}`;
  return app.fetch(`/rates/import${query}`, {
    method: "POST",
    headers: { ...authorization, "Content-Type": "application/vnd.ms-excel" },
    body: bytes as Uint8Array<ArrayBuffer>,
  });
}

/** POSTs up to `total` bytes in 1 MiB chunks, stopping when the answer's status line arrives. */
function streamUntilAnswered(pathname: string, total: number): Promise<{ status: number; sentWhenAnswered: number }> {
  return new Promise((resolve, reject) => {
    let sent = 0;
    let answered = false;
    const chunk = Buffer.alloc(1024 * 1024);
    const request = http.request(new URL(pathname, app.baseUrl), {
      method: "POST",
      headers: { ...authorization, "Content-Type": "application/octet-stream", "Transfer-Encoding": "chunked" },
    });
    request.on("response", (response) => {
      answered = true;
      const sentWhenAnswered = sent;
      response.resume();
      response.on("end", () => {
        request.destroy();
        resolve({ status: response.statusCode ?? 0, sentWhenAnswered });
      });
    });
    request.on("error", (error) => {
      if (!answered) reject(error);
    });
    const write = () => {
      while (!answered && sent < total) {
        sent += chunk.byteLength;
        if (!request.write(chunk)) return void request.once("drain", write);
      }
      if (!answered) request.end();
    };
    write();
  });
}

/** Who imported each stored value of `date`, by currency (null: not imported by a user). */
function importersOn(date: string): Record<string, number | null> {
  const rows = queryDatabase<{ currency: string; importedById: number | null }>(
    app,
    {
      sqlite: `SELECT "currency", "importedById" FROM "CurrencyRate" WHERE "date" = ?`,
      postgresql: `SELECT "currency", "importedById" FROM "CurrencyRate" WHERE "date" = :'params'::json ->> 0`,
    },
    [date],
  );
  return Object.fromEntries(rows.map((row) => [row.currency, row.importedById]));
}

async function ratesOn(date: string, currencies: string) {
  const response = await app.fetch(`/rates/${date}?currencies=${currencies}`);
  expect(response.status).toBe(200);
  return rateFields(await response.json());
}

describe("POST /rates/import", () => {
  it("answers 401 without credentials and reads nothing", async () => {
    const response = await upload(readWorkbook(Q4_2025), "2_1_2d25_smc.xls", {});
    expect(response.status).toBe(401);
    expect(readAllStoredRates(app)).toEqual([]);
  });

  it("answers 403 (problem+json) to a signed-in user who is not an admin, and stores nothing", async () => {
    const stranger = await registerAndGetToken(app);
    for (const response of [
      await upload(readWorkbook(Q4_2025), "2_1_2d25_smc.xls", stranger.authorization),
      await app.fetch("/rates/import?overwrite=true", {
        method: "POST",
        headers: { ...stranger.authorization, "Content-Type": "application/vnd.ms-excel" },
        body: readWorkbook(Q4_2025) as Uint8Array<ArrayBuffer>,
      }),
    ]) {
      expect(response.status).toBe(403);
      expect(response.headers.get("content-type")).toBe("application/problem+json");
      expect((await response.json()).detail).toMatch(/admin/i);
    }
    expect(readAllStoredRates(app)).toEqual([]);
  });

  it("imports the fourth-quarter workbook: every currency under each sheet's Fecha Valor, ask and bid", async () => {
    const response = await upload(readWorkbook(Q4_2025), "2_1_2d25_smc.xls");
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      file: "2_1_2d25_smc.xls",
      overwrite: false,
      sheets_read: 9,
      dates_added: 9,
      dates_changed: 0,
      dates_unchanged: 0,
      values_stored: 189,
      first_date: "2025-10-02",
      last_date: "2025-10-14",
      currencies: [...BANK_CURRENCIES].sort(),
      sheets_skipped: [],
      rows_skipped: [],
      home_page_kept: [],
      workbook_won: [],
    });
    const rows = readAllStoredRates(app);
    expect(rows).toHaveLength(9 * 21);
    // Sheet 13102025: operated on 2025-10-13, value date 2025-10-14; the home page printed 197,24560000 then.
    expect(rows.find((row) => row.date === "2025-10-14" && row.currency === "USD")).toMatchObject({
      rate: "197.2456",
      bid: "196.752486",
      source: "workbook",
      sourceDetail: "2_1_2d25_smc.xls#13102025",
    });
    expect(rows.some((row) => row.date === "2025-10-13" && row.sourceDetail === "2_1_2d25_smc.xls#13102025")).toBe(
      false,
    );
    // Every value records the admin who imported it.
    expect(new Set(Object.values(importersOn("2025-10-14")))).toEqual(new Set([adminId]));
    expect(rateFields(await (await app.fetch("/rates/")).json())).toEqual({ dollar: 197.2456, date: "2025-10-14" });
    expect(await ratesOn("2025-10-14", "EUR,MXN,JPY")).toEqual({
      dollar: 197.2456,
      date: "2025-10-14",
      rates: { EUR: 228.09086692, MXN: 10.69406432, JPY: 1.29495923 },
    });
    // Sheet 10102025 (a Friday): valid on Monday 2025-10-13.
    expect((await ratesOn("2025-10-13", "USD,EUR")).rates).toEqual({ USD: 195.2491, EUR: 226.03597808 });
    expect((await app.fetch("/rates/2025-10-11")).status).toBe(404);
  });

  it("changes nothing when the same file is imported again (here as the raw body)", async () => {
    await upload(readWorkbook(Q4_2025), "2_1_2d25_smc.xls");
    const before = readAllStoredRates(app);
    const response = await uploadRaw(readWorkbook(Q4_2025), "2_1_2d25_smc.xls");
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      sheets_read: 9,
      dates_added: 0,
      dates_changed: 0,
      dates_unchanged: 9,
      values_stored: 0,
    });
    expect(readAllStoredRates(app)).toEqual(before);
  });

  it("imports the first and second quarters, with value dates moved by carnival and Holy Week", async () => {
    const first = await (await upload(readWorkbook(Q1_2025), "2_1_2a25_smc.xls")).json();
    expect(first).toMatchObject({
      sheets_read: 58,
      dates_added: 58,
      first_date: "2025-01-03",
      last_date: "2025-04-01",
    });
    const second = await (await uploadRaw(readWorkbook(Q2_2025))).json();
    // The first quarter's last sheet (31/03) is valid on 2025-04-01, the second's first (01/04) on 2025-04-02.
    expect(second).toMatchObject({
      file: "upload.xls",
      sheets_read: 58,
      dates_added: 58,
      first_date: "2025-04-02",
      last_date: "2025-07-01",
    });

    expect(await ratesOn("2025-01-03", "USD,MXN")).toEqual({
      dollar: 52.5723,
      date: "2025-01-03",
      rates: { USD: 52.5723, MXN: 2.53403224 },
    });
    // Operated Friday 2025-02-28, valid Wednesday 2025-03-05, after carnival.
    expect(await ratesOn("2025-03-05", "EUR,MXN")).toEqual({
      dollar: 64.4844,
      date: "2025-03-05",
      rates: { EUR: 67.12181196, MXN: 3.15274722 },
    });
    expect((await app.fetch("/rates/2025-03-04")).status).toBe(404);
    // Operated Wednesday 2025-04-16, valid Monday 2025-04-21, after Holy Week.
    expect((await ratesOn("2025-04-21", "CNY")).rates).toEqual({ CNY: 11.0817307 });
    expect((await ratesOn("2025-07-01", "USD")).dollar).toBe(108.1891);
    const history = await (await app.fetch("/rates/history?start_date=2025-01-01&end_date=2025-12-31")).json();
    expect(history.rates).toHaveLength(116);
  });

  it("keeps a home-page value of the same date and currency, stores the rest, and says what it kept", async () => {
    seedRates(app, [{ date: "2025-10-14", dollar: "197.24000000", others: { EUR: "228.09086692" } }]);
    const before = readAllStoredRates(app).filter((row) => row.date === "2025-10-14");
    const summary = await (await upload(readWorkbook(Q4_2025), "2_1_2d25_smc.xls")).json();
    // 2025-10-14 gains the 19 currencies the page had not stored.
    expect(summary).toMatchObject({
      overwrite: false,
      dates_added: 8,
      dates_changed: 1,
      dates_unchanged: 0,
      values_stored: 9 * 21 - 2,
    });
    expect(summary.home_page_kept).toEqual([
      { date: "2025-10-14", currency: "USD", home_page: "197.24000000", workbook: "197.2456" },
    ]);
    expect(summary.workbook_won).toEqual([]);
    const rows = readAllStoredRates(app).filter((row) => row.date === "2025-10-14");
    // Both home-page rows untouched: the differing dollar and the agreeing euro alike.
    for (const currency of ["USD", "EUR"]) {
      expect(rows.find((row) => row.currency === currency)).toEqual(before.find((row) => row.currency === currency));
    }
    expect(rows.find((row) => row.currency === "USD")).toMatchObject({
      rate: "197.24000000",
      source: "home-page",
      bid: null,
    });
    expect(importersOn("2025-10-14")).toMatchObject({ USD: null, EUR: null, JPY: adminId });
    expect(rateFields(await (await app.fetch("/rates/")).json())).toEqual({ dollar: 197.24, date: "2025-10-14" });
  });

  it("replaces home-page values when the admin sends overwrite=true (form field or query), and says so", async () => {
    seedRates(app, [{ date: "2025-10-14", dollar: "197.24000000", others: { EUR: "228.09086692" } }]);
    const form = new FormData();
    form.append("file", new Blob([readWorkbook(Q4_2025) as Uint8Array<ArrayBuffer>]), "2_1_2d25_smc.xls");
    form.append("overwrite", "true");
    const summary = await (
      await app.fetch("/rates/import", { method: "POST", headers: authorization, body: form })
    ).json();
    expect(summary).toMatchObject({
      overwrite: true,
      dates_added: 8,
      dates_changed: 1,
      values_stored: 189,
      home_page_kept: [],
    });
    expect(summary.workbook_won).toEqual([
      { date: "2025-10-14", currency: "USD", home_page: "197.24000000", workbook: "197.2456" },
    ]);
    const rows = readAllStoredRates(app).filter((row) => row.date === "2025-10-14");
    expect(rows.find((row) => row.currency === "USD")).toMatchObject({ rate: "197.2456", source: "workbook" });
    // The same value from both: now recorded as the workbook's, with its bid.
    expect(rows.find((row) => row.currency === "EUR")).toMatchObject({
      rate: "228.09086692",
      bid: "227.52063976",
      source: "workbook",
    });
    expect(importersOn("2025-10-14")).toMatchObject({ USD: adminId, EUR: adminId });

    deleteAllRates(app);
    seedRates(app, [{ date: "2025-10-14", dollar: "197.24000000" }]);
    const raw = await app.fetch("/rates/import?overwrite=true&name=q4.xls", {
      method: "POST",
      headers: { ...authorization, "Content-Type": "application/vnd.ms-excel" },
      body: readWorkbook(Q4_2025) as Uint8Array<ArrayBuffer>,
    });
    expect(await raw.json()).toMatchObject({
      overwrite: true,
      values_stored: 189,
      workbook_won: [{ date: "2025-10-14", currency: "USD" }],
    });
  });

  it("answers 400 to an overwrite that is neither true nor false, storing nothing", async () => {
    const response = await app.fetch("/rates/import?overwrite=yes", {
      method: "POST",
      headers: { ...authorization, "Content-Type": "application/vnd.ms-excel" },
      body: readWorkbook(Q4_2025) as Uint8Array<ArrayBuffer>,
    });
    expect(response.status).toBe(400);
    expect((await response.json()).errors).toEqual([{ field: "query.overwrite", message: "must be true or false" }]);
    expect(readAllStoredRates(app)).toEqual([]);
  });

  it("lets a fetch of the home page restore the page's value over an imported one of the date it publishes", async () => {
    const today = todayAtOffset(-4);
    const workbook = makeWorkbook([{ name: "hoy", fechaValor: bankDate(today), rows: [["USD", 1.4, 1.5]] }]);
    expect((await upload(workbook, "today.xls")).status).toBe(200);
    expect(rateFields(await (await app.fetch("/rates/")).json())).toEqual({ dollar: 1.5, date: today });
    // The stand-in's page shows 236,45870000 for today, and 275,43890812 for the euro, which the workbook lacks.
    const response = await app.fetch("/rates/", { method: "POST", headers: authorization });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ dollar: 236.4587, date: today });
    const rows = readAllStoredRates(app);
    expect(rows.find((row) => row.currency === "USD")).toMatchObject({
      rate: "236.45870000",
      source: "home-page",
      bid: null,
    });
    expect(rows.find((row) => row.currency === "EUR")).toMatchObject({ rate: "275.43890812", source: "home-page" });
    // The page's five currencies, none recorded as imported.
    expect(Object.values(importersOn(today))).toEqual([null, null, null, null, null]);
    expect(app.output()).toContain(`it replaced the imported 1.5`);
  });

  it("skips sheets dated after today: an import never makes a future rate the latest", async () => {
    const today = todayAtOffset(-4);
    const nextWeek = shiftDate(today, 7);
    const workbook = makeWorkbook([
      { name: "hoy", fechaValor: bankDate(today), rows: [["USD", 230.1, 230.5]] },
      { name: "futuro", fechaValor: bankDate(nextWeek), rows: [["USD", 99998, 99999]] },
    ]);
    const summary = await (await upload(workbook, "future.xls")).json();
    expect(summary).toMatchObject({ sheets_read: 1, first_date: today, last_date: today });
    expect(summary.sheets_skipped).toEqual([
      {
        sheet: "futuro",
        reason: `its Fecha Valor ${nextWeek} is after today (${today}): future value dates come only from the bank's home page`,
      },
    ]);
    expect(readAllStoredRates(app).map((row) => row.date)).toEqual([today]);
    expect(rateFields(await (await app.fetch("/rates/")).json())).toEqual({ dollar: 230.5, date: today });

    const onlyFuture = makeWorkbook([
      { name: "futuro", fechaValor: bankDate(nextWeek), rows: [["USD", 99998, 99999]] },
    ]);
    const refused = await upload(onlyFuture, "future.xls");
    expect(refused.status).toBe(400);
    expect((await refused.json()).detail).toMatch(/no sheet dated today .* or earlier/);
  });
});

describe("POST /rates/import refuses what is not a workbook, touching no stored rate", () => {
  beforeEach(async () => {
    await upload(readWorkbook(Q4_2025), "2_1_2d25_smc.xls");
  });

  async function expectRefused(response: Response, status: number, detail: RegExp) {
    const stored = readAllStoredRates(app);
    expect(response.status).toBe(status);
    expect(response.headers.get("content-type")).toBe("application/problem+json");
    const problem = await response.json();
    expect(problem.detail).toMatch(detail);
    expect(readAllStoredRates(app)).toEqual(stored);
    expect(stored).toHaveLength(189);
  }

  it("a truncated workbook", async () => {
    const truncated = readWorkbook(Q1_2025).subarray(0, 100_000);
    await expectRefused(
      await upload(truncated, "2_1_2a25_smc.xls"),
      400,
      /^The file 2_1_2a25_smc\.xls is damaged or truncated: .*Nothing was stored\.$/,
    );
  });

  it("a text file renamed .xls", async () => {
    const text = new TextEncoder().encode("Fecha Valor: 14/10/2025\nUSD;999,99\n".repeat(50));
    await expectRefused(await upload(text, "2_1_2d25_smc.xls"), 400, /is not an Excel 97-2003 workbook \(\.xls\)/);
    await expectRefused(await uploadRaw(text, "rates.xls"), 400, /is not an Excel 97-2003 workbook/);
  });

  it("an upload past the size limit, as a form, a raw body or a stream that never ends", async () => {
    const huge = new Uint8Array(6 * 1024 * 1024);
    huge.set(readWorkbook(Q4_2025));
    await expectRefused(await upload(huge, "2_1_2d25_smc.xls"), 413, /larger than \d+ bytes/);
    await expectRefused(await uploadRaw(huge), 413, /larger than \d+ bytes/);

    // A zip-bomb-sized body without a length (chunked): refused past the limit, having kept at most the limit.
    // (Next.js reads the rest of the body before the answer goes out: a proxy in front should cap bodies too.)
    const stored = readAllStoredRates(app);
    const { status } = await streamUntilAnswered("/rates/import", 128 * 1024 * 1024);
    expect(status).toBe(413);
    expect(readAllStoredRates(app)).toEqual(stored);
  });

  it("an empty body or a form without the file", async () => {
    await expectRefused(await uploadRaw(new Uint8Array()), 400, /no workbook/);
    const form = new FormData();
    form.append("other", "x");
    await expectRefused(
      await app.fetch("/rates/import", { method: "POST", headers: authorization, body: form }),
      400,
      /field `file`/,
    );
  });
});

// Each case starts the command (tsx, then a worker thread) once or twice: a minute or more on a busy machine.
describe("npm run rates:import", { timeout: 240_000 }, () => {
  const run = (...files: string[]) =>
    spawnSync(path.join(projectRoot, "node_modules", ".bin", "tsx"), ["scripts/import-rates.ts", ...files], {
      cwd: projectRoot,
      env: { ...process.env, ...commandEnvironment(app) },
      encoding: "utf8",
      timeout: 120_000,
    });

  it("imports files into the configured database and prints what it read and changed", () => {
    const first = run(Q4_2025);
    expect(first.status).toBe(0);
    expect(first.stdout).toContain("2_1_2d25_smc.xls: 9 sheets read, value dates 2025-10-02 .. 2025-10-14");
    expect(first.stdout).toContain("dates added 9, changed 0, unchanged 0");
    expect(readAllStoredRates(app)).toHaveLength(189);

    const again = run(Q4_2025);
    expect(again.status).toBe(0);
    expect(again.stdout).toContain("dates added 0, changed 0, unchanged 9");
  });

  it("keeps home-page values unless --overwrite is given, and records no importing user", () => {
    seedRates(app, [{ date: "2025-10-14", dollar: "197.24000000" }]);
    const kept = run(Q4_2025);
    expect(kept.status).toBe(0);
    expect(kept.stdout).toContain("2025-10-14 USD: kept the home page's 197.24000000, not the workbook's 197.2456");
    expect(importersOn("2025-10-14")).toMatchObject({ USD: null, EUR: null });
    expect(readAllStoredRates(app).find((row) => row.date === "2025-10-14" && row.currency === "USD")).toMatchObject({
      source: "home-page",
    });

    const replaced = run("--overwrite", Q4_2025);
    expect(replaced.status).toBe(0);
    expect(replaced.stdout).toContain("2025-10-14 USD: the workbook's 197.2456 replaced the home page's 197.24000000");
    expect(readAllStoredRates(app).find((row) => row.date === "2025-10-14" && row.currency === "USD")).toMatchObject({
      source: "workbook",
    });
  });

  it("exits non-zero naming a file that is not a workbook, and stores nothing of it", () => {
    const result = run(path.join(projectRoot, "package.json"), Q4_2025);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(
      "package.json: not imported, nothing stored: the file is not an Excel 97-2003 workbook",
    );
    expect(result.stderr).toContain("1 of 2 files not imported");
    expect(result.stdout).toContain("2_1_2d25_smc.xls: 9 sheets read");
    expect(readAllStoredRates(app)).toHaveLength(189);
  });
});
