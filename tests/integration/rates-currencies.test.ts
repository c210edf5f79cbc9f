import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AppServer, type SharedBank, sharedAppServer, sharedBank } from "../support/app-server";
import {
  expectConditionalGet,
  rateFields,
  rateText,
  readAllStoredRates,
  shiftDate,
  todayAtOffset,
} from "../support/rates";
import { registerAndGetToken } from "../support/users";
import { Q4_2025, readWorkbook } from "../support/workbooks";

// The fourth quarter of 2025 from the bank's workbook (value dates 2025-10-02 .. 2025-10-14), then whatever
// the home page stand-in shows for today. Figures read from the file with a spreadsheet program.
let bcv: SharedBank;
let app: AppServer;
let authorization: Record<string, string>;
beforeAll(async () => {
  app = await sharedAppServer();
  bcv = sharedBank();
  ({ authorization } = await registerAndGetToken(app));
  const form = new FormData();
  form.append("file", new Blob([readWorkbook(Q4_2025) as Uint8Array<ArrayBuffer>]), "2_1_2d25_smc.xls");
  const imported = await app.fetch("/rates/import", { method: "POST", headers: authorization, body: form });
  if (imported.status !== 200) throw new Error(`import answered ${imported.status}: ${await imported.text()}`);
});
afterAll(() => app?.stop());

const get = async (path: string, status = 200) => {
  const response = await app.fetch(path);
  expect(response.status, path).toBe(status);
  return rateFields(await response.json());
};

const convert = (query: string) => get(`/convert?${query}`);

describe("rate reads with `currencies`", () => {
  it("answer exactly as before without it", async () => {
    expect(rateText(await (await app.fetch("/rates/")).text())).toBe('{"dollar":197.2456,"date":"2025-10-14"}');
    expect(rateText(await (await app.fetch("/rates/2025-10-13")).text())).toBe(
      '{"dollar":195.2491,"date":"2025-10-13"}',
    );
    expect(await (await app.fetch("/rates/history?start_date=2025-10-09&end_date=2025-10-10")).text()).toBe(
      '{"start_date":"2025-10-09","end_date":"2025-10-10","rates":[{"dollar":193.2996,"date":"2025-10-10"},{"dollar":191.3661,"date":"2025-10-09"}]}',
    );
  });

  it("carry `rates` for the asked codes, any case, in the order asked", async () => {
    expect(await get("/rates/?currencies=eur,MXN, cny")).toEqual({
      dollar: 197.2456,
      date: "2025-10-14",
      rates: { EUR: 228.09086692, MXN: 10.69406432, CNY: 27.65836079 },
    });
    expect(await get("/rates/2025-10-10?currencies=EUR")).toEqual({
      dollar: 193.2996,
      date: "2025-10-10",
      rates: { EUR: 223.63797222 },
    });
  });

  it("carry every stored currency for `all`, USD first", async () => {
    const { rates } = await get("/rates/2025-10-14?currencies=all");
    expect(Object.keys(rates)).toHaveLength(21);
    expect(Object.keys(rates)[0]).toBe("USD");
    expect(rates).toMatchObject({ USD: 197.2456, TRY: 4.7205334, ANG: 113.09305659, CUC: 197.2456 });
  });

  it("carry them in the history too", async () => {
    const history = await get("/rates/history?start_date=2025-10-09&end_date=2025-10-10&currencies=USD,JPY");
    expect(history).toEqual({
      start_date: "2025-10-09",
      end_date: "2025-10-10",
      rates: [
        { dollar: 193.2996, date: "2025-10-10", rates: { USD: 193.2996, JPY: 1.26264509 } },
        { dollar: 191.3661, date: "2025-10-09", rates: { USD: 191.3661, JPY: expect.any(Number) } },
      ],
    });
  });

  it("have their own ETag, and revalidate", async () => {
    const plain = await expectConditionalGet(app, "/rates/2025-10-14");
    const withEuro = await expectConditionalGet(app, "/rates/2025-10-14?currencies=EUR");
    const withAll = await expectConditionalGet(app, "/rates/2025-10-14?currencies=all");
    expect(new Set([plain, withEuro, withAll]).size).toBe(3);
    const crossed = await app.fetch("/rates/2025-10-14?currencies=EUR", { headers: { "If-None-Match": plain } });
    expect(crossed.status).toBe(200);
  });

  it.each([
    ["GBP", /GBP is not a currency the central bank publishes/],
    ["EURO", /"EURO" is not a three-letter ISO 4217 code/],
    ["EUR,,USD", /"" is not a three-letter ISO 4217 code/],
    ["MXP", /MXP is not a currency the central bank publishes/],
  ])("answer 400 naming the bad code in currencies=%s", async (value, message) => {
    for (const path of ["/rates/", "/rates/2025-10-14", "/rates/history"]) {
      const response = await app.fetch(`${path}?currencies=${encodeURIComponent(value)}`);
      expect(response.status).toBe(400);
      expect(response.headers.get("content-type")).toBe("application/problem+json");
      const problem = await response.json();
      expect(problem.errors[0].field).toBe("query.currencies");
      expect(problem.errors[0].message).toMatch(message);
    }
  });
});

describe("GET /currencies", () => {
  it("lists each stored currency with its name, first and last date and number of dates, USD first", async () => {
    const { currencies } = await get("/currencies");
    expect(currencies).toHaveLength(21);
    expect(currencies[0]).toEqual({
      code: "USD",
      name: "US dollar",
      first_date: "2025-10-02",
      last_date: expect.any(String),
      dates: expect.any(Number),
    });
    expect(currencies.map((currency: { code: string }) => currency.code).slice(1)).toEqual(
      [...currencies.map((currency: { code: string }) => currency.code).slice(1)].sort(),
    );
    expect(currencies.find((currency: { code: string }) => currency.code === "MXN")).toEqual({
      code: "MXN",
      name: "Mexican peso",
      first_date: "2025-10-02",
      last_date: "2025-10-14",
      dates: 9,
    });
  });
});

describe("GET /convert", () => {
  it("converts dollars to bolivares and back at the latest rate", async () => {
    expect(await convert("amount=100&from=USD&to=VES&date=2025-10-14")).toEqual({
      amount: "100",
      from: "USD",
      to: "VES",
      result: "19724.56",
      rate: "197.2456",
      date: "2025-10-14",
      requested_date: null,
      rates: { USD: "197.2456" },
    });
    expect(await convert("amount=19724.56&from=VES&to=usd&date=2025-10-14")).toMatchObject({
      result: "100",
      from: "VES",
      to: "USD",
    });
    expect(await convert("amount=1000&from=VES&to=EUR&date=2025-10-14")).toMatchObject({
      result: "4.38421763",
      rate: "0.00438421763",
    });
  });

  it("converts between two currencies through the bolívar, in decimal arithmetic", async () => {
    // 100 × 228.09086692 / 10.69406432, rounded half up to 8 decimals.
    expect(await convert("amount=100&from=EUR&to=MXN&date=2025-10-14")).toMatchObject({
      result: "2132.87352773",
      rate: "21.328735277328",
      rates: { EUR: "228.09086692", MXN: "10.69406432" },
    });
    expect(await convert("amount=100&from=EUR&to=USD&date=2025-10-14")).toMatchObject({ result: "115.638" });
    // 0.1 + 0.2 style losses would show here: 3 × 197.2456 is exactly 591.7368.
    expect(await convert("amount=3&from=USD&to=VES&date=2025-10-14")).toMatchObject({ result: "591.7368" });
  });

  it("uses the nearest earlier date with rates on a weekend, and says so", async () => {
    expect(await convert("amount=100&from=EUR&to=MXN&date=2025-10-12")).toEqual({
      amount: "100",
      from: "EUR",
      to: "MXN",
      result: "2126.63607334",
      rate: "21.266360733416",
      date: "2025-10-10",
      requested_date: "2025-10-12",
      rates: { EUR: "223.63797222", MXN: "10.51604339" },
    });
  });

  it("reads the amount with a dot decimal and no grouping, whatever the language: 50.000 is fifty", async () => {
    expect(await convert("amount=50.000&from=USD&to=VES&date=2025-10-14")).toMatchObject({
      amount: "50",
      result: "9862.28",
    });
  });

  it.each([
    ["amount=50,000&from=USD&to=VES", "query.amount", /decimal number with a dot/],
    ["amount=1.234,56&from=USD&to=VES", "query.amount", /decimal number with a dot/],
    ["amount=1.234.567&from=USD&to=VES", "query.amount", /decimal number with a dot/],
    ["amount=0&from=USD&to=VES", "query.amount", /greater than zero/],
    ["amount=-5&from=USD&to=VES", "query.amount", /positive decimal/],
    ["amount=abc&from=USD&to=VES", "query.amount", /positive decimal/],
    ["amount=1e3&from=USD&to=VES", "query.amount", /positive decimal/],
    ["from=USD&to=VES", "query.amount", /required/],
    ["amount=1&from=GBP&to=VES", "query.from", /GBP is not a currency with rates here/],
    ["amount=1&from=USD&to=dollars", "query.to", /not a three-letter ISO 4217 code/],
    ["amount=1&from=USD&to=VES&date=2025-10-01", "query.date", /before the first date with rates \(USD 2025-10-02\)/],
    ["amount=1&from=USD&to=VES&date=2025-02-30", "query.date", /calendar date/],
  ])("answers 400 for %s, naming %s", async (query, field, message) => {
    const response = await app.fetch(`/convert?${query}`);
    expect(response.status).toBe(400);
    expect(response.headers.get("content-type")).toBe("application/problem+json");
    const problem = await response.json();
    expect(problem.errors[0].field).toBe(field);
    expect(problem.errors[0].message).toMatch(message);
  });
});

describe("POST /rates/ stores every currency of the home page", () => {
  it("stores the five currencies under the Fecha Valor, and reads serve them", async () => {
    const today = todayAtOffset(-4);
    const response = await app.fetch("/rates/", { method: "POST", headers: authorization });
    expect(response.status).toBe(201);
    const stored = readAllStoredRates(app).filter((row) => row.date === today);
    expect(stored.map((row) => [row.currency, row.rate, row.source])).toEqual([
      ["CNY", "33.12094517", "home-page"],
      ["EUR", "275.43890812", "home-page"],
      ["RUB", "2.93270416", "home-page"],
      ["TRY", "5.61722039", "home-page"],
      ["USD", "236.45870000", "home-page"],
    ]);
    expect(await get("/rates/?currencies=all")).toEqual({
      dollar: 236.4587,
      date: today,
      rates: { USD: 236.4587, CNY: 33.12094517, EUR: 275.43890812, RUB: 2.93270416, TRY: 5.61722039 },
    });
    // The latest rates of the euro, today; of the peso, the workbook's last date: each conversion uses one
    // date on which both currencies have a rate.
    expect(await convert("amount=1&from=EUR&to=VES")).toMatchObject({ date: today, result: "275.43890812" });
    expect(await convert("amount=1&from=EUR&to=MXN")).toMatchObject({ date: "2025-10-14" });
  });

  it("keeps the others when a currency block is missing or unreadable", async () => {
    const tomorrow = shiftDate(todayAtOffset(-4), 1);
    await bcv.setScenario("partial-currencies");
    await bcv.setRate({ dollar: "240,00000000", date: tomorrow });
    try {
      const response = await app.fetch("/rates/", { method: "POST", headers: authorization });
      expect(response.status).toBe(201);
      expect(await get(`/rates/${tomorrow}?currencies=USD,EUR,CNY,TRY,RUB`)).toEqual({
        dollar: 240,
        date: tomorrow,
        rates: { USD: 240, TRY: 5.61722039, RUB: 2.93270416 },
      });
    } finally {
      await bcv.setScenario("ok");
      await bcv.setRate(undefined);
    }
  });
});

describe("CORS", () => {
  it("lets any origin read the public endpoints, without credentials", async () => {
    for (const path of [
      "/rates/",
      "/rates/2025-10-14",
      "/rates/history",
      "/currencies",
      "/convert?amount=1&from=USD&to=VES",
      "/rates/?currencies=XXX",
    ]) {
      const response = await app.fetch(path, { headers: { Origin: "https://calculadora.example" } });
      expect(response.headers.get("access-control-allow-origin"), path).toBe("*");
      expect(response.headers.get("access-control-allow-credentials"), path).toBeNull();
    }
  });

  it("answers preflights: reads, and writes with a bearer token", async () => {
    const preflight = (path: string, method: string) =>
      app.fetch(path, {
        method: "OPTIONS",
        headers: {
          Origin: "https://calculadora.example",
          "Access-Control-Request-Method": method,
          "Access-Control-Request-Headers": "authorization, content-type",
        },
      });
    const read = await preflight("/convert", "GET");
    expect(read.status).toBe(204);
    expect(read.headers.get("access-control-allow-origin")).toBe("*");
    expect(read.headers.get("access-control-allow-methods")).toContain("GET");

    const write = await preflight("/rates/import", "POST");
    expect(write.status).toBe(204);
    expect(write.headers.get("access-control-allow-methods")).toBe("POST, OPTIONS");
    expect(write.headers.get("access-control-allow-headers")).toContain("Authorization");
    expect(write.headers.get("access-control-allow-credentials")).toBeNull();

    const post = await app.fetch("/rates/", {
      method: "POST",
      headers: { ...authorization, Origin: "https://calculadora.example" },
    });
    expect(post.status).toBe(200);
    expect(post.headers.get("access-control-allow-origin")).toBe("*");
  });

  it("stays off the other endpoints", async () => {
    const response = await app.fetch("/builds", { headers: { Origin: "https://calculadora.example" } });
    expect(response.headers.get("access-control-allow-origin")).toBeNull();
  });
});
