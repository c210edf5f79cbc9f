import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AppServer, sharedAppServer } from "../support/app-server";
import { expectConditionalGet, shiftDate, todayAtOffset } from "../support/rates";
import { importWithCommand, Q2_2025 } from "../support/workbooks";

// The bank's second quarter of 2025 (tests/fixtures/bcv-workbooks/2_1_2b25_smc.xls). Its value dates skip the
// weekends and the holidays: Holy Thursday and Good Friday (17 and 18 April), 19 April, and 1 May.
// Figures read from the file with a spreadsheet program, not with the code under test.
let app: AppServer;
beforeAll(async () => {
  app = await sharedAppServer();
  importWithCommand(app, Q2_2025);
});
afterAll(() => app?.stop());

// The quarter's rates are long past: none of them is the rate in force today.
const about = { in_force: false, published_at: expect.any(String) };

const inForce = async (date: string, query = "") => {
  const response = await app.fetch(`/rates/${date}?in_force=true${query}`);
  return { status: response.status, body: await response.json() };
};

describe("GET /rates/{date}?in_force=true", () => {
  it("answers a weekend with the rate of the Friday before, naming that value date", async () => {
    // Saturday 5 and Sunday 6 April 2025; Friday 4 April's value is 70.5852.
    for (const date of ["2025-04-05", "2025-04-06"]) {
      expect(await inForce(date)).toEqual({
        status: 200,
        body: { dollar: 70.5852, date, value_date: "2025-04-04", ...about },
      });
    }
  });

  it("answers a holiday with the rate of the last value date before it", async () => {
    // Labour Day, Thursday 1 May 2025: Wednesday 30 April's 86.8465 is in force.
    expect(await inForce("2025-05-01")).toEqual({
      status: 200,
      body: { dollar: 86.8465, date: "2025-05-01", value_date: "2025-04-30", ...about },
    });
    // Holy week: from Thursday 17 to Sunday 20 April, Wednesday 16 April's 79.7844.
    for (const date of ["2025-04-17", "2025-04-18", "2025-04-19", "2025-04-20"]) {
      expect((await inForce(date)).body).toEqual({ dollar: 79.7844, date, value_date: "2025-04-16", ...about });
    }
  });

  it("answers a value date with its own rate, value_date equal to date", async () => {
    expect((await inForce("2025-05-02")).body).toEqual({
      dollar: 87.5681,
      date: "2025-05-02",
      value_date: "2025-05-02",
      ...about,
    });
  });

  it("carries the asked currencies of the value date in force", async () => {
    expect((await inForce("2025-05-01", "&currencies=EUR,CNY")).body).toEqual({
      dollar: 86.8465,
      date: "2025-05-01",
      value_date: "2025-04-30",
      rates: { EUR: 99.01282618, CNY: 11.94242378 },
      ...about,
    });
  });

  it("answers 404 before the first stored rate", async () => {
    const { status, body } = await inForce("2025-04-01");
    expect(status).toBe(404);
    expect(body.detail).toBe("No rate is stored on or before 2025-04-01: no rate was in force then.");
  });

  it("answers 404 for a date after today and after the newest value date: not known yet", async () => {
    const later = shiftDate(todayAtOffset(-4), 3);
    const { status, body } = await inForce(later);
    expect(status).toBe(404);
    expect(body.detail).toMatch(
      new RegExp(
        `^${later} is after today \\(\\d{4}-\\d{2}-\\d{2}\\) and after the newest value date \\(2025-07-01\\)`,
      ),
    );
  });

  it("answers a date without a rate of its own with 404 as before without the parameter, or with in_force=false", async () => {
    for (const path of ["/rates/2025-05-01", "/rates/2025-05-01?in_force=false"]) {
      const response = await app.fetch(path);
      expect(response.status).toBe(404);
      expect((await response.json()).detail).toBe(
        "No rate is stored for 2025-05-01; the nearest earlier date with a rate is 2025-04-30.",
      );
    }
  });

  it("answers 400 naming in_force for a value other than true or false", async () => {
    const response = await app.fetch("/rates/2025-05-01?in_force=yes");
    expect(response.status).toBe(400);
    expect((await response.json()).errors).toEqual([{ field: "query.in_force", message: 'must be "true" or "false"' }]);
  });

  it("is cached and revalidated like the other rate reads", async () => {
    await expectConditionalGet(app, "/rates/2025-04-05?in_force=true");
  });
});
