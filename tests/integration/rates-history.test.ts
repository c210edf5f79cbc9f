import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AppServer, sharedAppServer, startAppServer } from "../support/app-server";
import { deleteAllRates, expectConditionalGet, seedRates, shiftDate, todayAtOffset } from "../support/rates";

let app: AppServer;
beforeAll(async () => {
  // RATES_TIMEZONE is left at its default, America/Caracas (UTC-4 all year).
  app = await sharedAppServer();
});
afterAll(() => app?.stop());

const history = (query: string) => app.fetch(`/rates/history${query}`);

/** GET and the JSON body, checking the status. */
async function historyBody(query: string, status = 200) {
  const response = await history(query);
  expect(response.status, await response.clone().text()).toBe(status);
  return response.json();
}

describe("GET /rates/history with both dates", () => {
  it("answers the rates of the range, both ends included, newest first", async () => {
    deleteAllRates(app);
    seedRates(app, [
      { date: "2026-10-31", dollar: "220.00000000" },
      { date: "2026-11-02", dollar: "221.50000000" },
      { date: "2026-11-20", dollar: "233.10000000" },
      { date: "2026-11-10", dollar: "228.12345678" },
      { date: "2026-11-21", dollar: "234.00000000" },
    ]);
    expect(await historyBody("?start_date=2026-11-02&end_date=2026-11-20")).toEqual({
      start_date: "2026-11-02",
      end_date: "2026-11-20",
      rates: [
        { dollar: 233.1, date: "2026-11-20" },
        { dollar: 228.12345678, date: "2026-11-10" },
        { dollar: 221.5, date: "2026-11-02" },
      ],
    });
  });

  it("answers an empty list for a range without rates, and accepts a one-day range", async () => {
    expect(await historyBody("?start_date=2020-01-01&end_date=2020-02-01")).toEqual({
      start_date: "2020-01-01",
      end_date: "2020-02-01",
      rates: [],
    });
    expect((await historyBody("?start_date=2026-11-10&end_date=2026-11-10")).rates).toEqual([
      { dollar: 228.12345678, date: "2026-11-10" },
    ]);
  });

  it("answers 400 when start_date is after end_date", async () => {
    const response = await history("?start_date=2026-11-21&end_date=2026-11-20");
    expect(response.status).toBe(400);
    expect(response.headers.get("content-type")).toBe("application/problem+json");
    const problem = await response.json();
    expect(problem).toMatchObject({ title: "Bad Request", status: 400 });
    expect(problem.detail).toBe("start_date 2026-11-21 is after end_date 2026-11-20.");
  });

  it("serves up to 3660 days and answers 400 beyond", async () => {
    // 2016-11-25 .. 2026-12-03 is exactly 3660 days (with the leap days of 2020 and 2024).
    expect((await historyBody("?start_date=2016-11-25&end_date=2026-12-03")).rates).toHaveLength(5);
    const response = await history("?start_date=2016-11-24&end_date=2026-12-03");
    expect(response.status).toBe(400);
    const problem = await response.json();
    expect(problem.detail).toBe(
      "The range 2016-11-24 .. 2026-12-03 spans 3661 days; at most 3660 are served per request.",
    );
  });

  it.each([
    ["?start_date=2026-02-30&end_date=2026-03-10", ["query.start_date"]],
    ["?start_date=2026-01-01&end_date=2026-13-01", ["query.end_date"]],
    ["?start_date=abc", ["query.start_date"]],
    ["?end_date=", ["query.end_date"]],
    ["?start_date=2026-1-1&end_date=tomorrow", ["query.end_date", "query.start_date"]],
  ])("answers 400 for %s, naming each bad date", async (query, fields) => {
    const response = await history(query);
    expect(response.status).toBe(400);
    const problem = await response.json();
    expect(problem).toMatchObject({ title: "Bad Request", status: 400 });
    expect(problem.errors.map((error: { field: string }) => error.field).sort()).toEqual(fields);
  });
});

describe("GET /rates/history defaults, with today in RATES_TIMEZONE", () => {
  // America/Caracas has been UTC-4 all year since 2016. Two readings of "today" bracket the request, in
  // case midnight passes in between.
  async function withCaracasToday(query: string) {
    const before = todayAtOffset(-4);
    const body = await historyBody(query);
    const after = todayAtOffset(-4);
    const today = body.end_date === before || body.start_date === before ? before : after;
    return { body, today };
  }

  it("uses today - 30 days .. today with neither date", async () => {
    deleteAllRates(app);
    const today = todayAtOffset(-4);
    seedRates(app, [
      { date: shiftDate(today, -31), dollar: "1.00000000" },
      { date: shiftDate(today, -30), dollar: "2.00000000" },
      { date: today, dollar: "3.00000000" },
      { date: shiftDate(today, 1), dollar: "4.00000000" },
    ]);
    const { body, today: used } = await withCaracasToday("");
    expect(body.end_date).toBe(used);
    expect(body.start_date).toBe(shiftDate(used, -30));
    if (used === today) {
      expect(body.rates).toEqual([
        { dollar: 3, date: today },
        { dollar: 2, date: shiftDate(today, -30) },
      ]);
    }
  });

  it("uses start_date .. today with only start_date", async () => {
    const { body, today } = await withCaracasToday("?start_date=2026-01-15");
    expect(body.start_date).toBe("2026-01-15");
    expect(body.end_date).toBe(today);
  });

  it("uses end_date - 30 days .. end_date with only end_date", async () => {
    expect(await historyBody("?end_date=2026-03-15")).toMatchObject({
      start_date: "2026-02-13",
      end_date: "2026-03-15",
    });
    expect(await historyBody("?end_date=2024-03-15")).toMatchObject({
      start_date: "2024-02-14",
      end_date: "2024-03-15",
    });
  });

  it("answers 400 for a start_date after today, or more than 3660 days before it", async () => {
    const today = todayAtOffset(-4);
    expect((await history(`?start_date=${shiftDate(today, 2)}`)).status).toBe(400);
    expect((await history(`?start_date=${shiftDate(today, -3670)}`)).status).toBe(400);
  });

  it("takes today in the configured zone", async () => {
    // Kiritimati is UTC+14 and Pago Pago UTC-11: their dates always differ, so a server reading "today"
    // in UTC or its own zone cannot pass both.
    const [ahead, behind] = await Promise.all([
      startAppServer({ RATES_TIMEZONE: "Pacific/Kiritimati" }),
      startAppServer({ RATES_TIMEZONE: "Pacific/Pago_Pago" }),
    ]);
    try {
      for (const [server, offset] of [
        [ahead, 14],
        [behind, -11],
      ] as const) {
        const before = todayAtOffset(offset);
        const body = await (await server.fetch("/rates/history")).json();
        expect([before, todayAtOffset(offset)]).toContain(body.end_date);
        expect(body.start_date).toBe(shiftDate(body.end_date, -30));
      }
    } finally {
      await Promise.all([ahead.stop(), behind.stop()]);
    }
  });
});

describe("GET /rates/history caching", () => {
  it("sends ETag and Cache-Control, and 304 for a matching If-None-Match", async () => {
    seedRates(app, [{ date: "2026-11-10", dollar: "228.12345678" }]);
    const query = "/rates/history?start_date=2026-11-01&end_date=2026-11-30";
    const etag = await expectConditionalGet(app, query);
    seedRates(app, [{ date: "2026-11-11", dollar: "229.00000000" }]);
    expect((await app.fetch(query, { headers: { "If-None-Match": etag } })).status).toBe(200);
  });
});
