import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AppServer, sharedAppServer } from "../support/app-server";
import { expectConditionalGet, rateFields, rateText } from "../support/rates";
import { importWithCommand, Q2_2025 } from "../support/workbooks";

// The bank's second quarter of 2025 (tests/fixtures/bcv-workbooks/2_1_2b25_smc.xls). Every expected figure was
// computed by hand from the workbook's Bs./M.E. ask column with `bc` (scale 12), not with the code under test:
//   USD 2025-05-02 87.5681 - 2025-04-30 86.8465 = 0.7216; 0.7216 / 86.8465 * 100 = 0.830891285... -> 0.8309
//   EUR 2025-05-02 99.48261568 - 99.01282618 = 0.4697895; / 99.01282618 * 100 = 0.474473376... -> 0.4745
//   CNY 2025-05-02 12.0406589 - 11.94242378 = 0.09823512; / 11.94242378 * 100 = 0.822572718... -> 0.8226
//   USD 2025-05-05 88.6405 - 87.5681 = 1.0724; / 87.5681 * 100 = 1.224646874... -> 1.2246
//   EUR 2025-05-13 103.47876323 - 104.80258234 = -1.32381911; / 104.80258234 * 100 = -1.263155048... -> -1.2632
let app: AppServer;
beforeAll(async () => {
  app = await sharedAppServer();
  importWithCommand(app, Q2_2025);
});
afterAll(() => app?.stop());

const read = async (path: string) => {
  const response = await app.fetch(path);
  expect(response.status, path).toBe(200);
  return rateFields(await response.json());
};

describe("include=change", () => {
  it("GET /rates/{date}: the previous value date's rate and the change in bolivares and percent", async () => {
    // 1 May was a holiday: the previous value date of 2 May is 30 April.
    expect(await read("/rates/2025-05-02?include=change")).toEqual({
      dollar: 87.5681,
      date: "2025-05-02",
      previous: { date: "2025-04-30", dollar: 86.8465 },
      change: 0.7216,
      change_percent: 0.8309,
    });
  });

  it("GET /rates/{date}: per currency with `currencies`", async () => {
    expect(await read("/rates/2025-05-02?include=change&currencies=EUR,CNY")).toEqual({
      dollar: 87.5681,
      date: "2025-05-02",
      rates: { EUR: 99.48261568, CNY: 12.0406589 },
      previous: { date: "2025-04-30", dollar: 86.8465 },
      change: 0.7216,
      change_percent: 0.8309,
      changes: {
        EUR: { previous_date: "2025-04-30", previous: 99.01282618, change: 0.4697895, change_percent: 0.4745 },
        CNY: { previous_date: "2025-04-30", previous: 11.94242378, change: 0.09823512, change_percent: 0.8226 },
      },
    });
  });

  it("a fall is negative", async () => {
    const body = await read("/rates/2025-05-13?include=change&currencies=EUR");
    expect(body.changes.EUR).toEqual({
      previous_date: "2025-05-12",
      previous: 104.80258234,
      change: -1.32381911,
      change_percent: -1.2632,
    });
  });

  it("the first stored date has no previous: null", async () => {
    expect(await read("/rates/2025-04-02?include=change&currencies=EUR")).toMatchObject({
      previous: null,
      change: null,
      change_percent: null,
      changes: { EUR: { previous_date: null, previous: null, change: null, change_percent: null } },
    });
  });

  it("GET /rates/history: each rate's previous, the oldest's taken from before the range", async () => {
    const body = await read("/rates/history?start_date=2025-05-01&end_date=2025-05-05&include=change&currencies=EUR");
    expect(body.rates.map((rate: { date: string }) => rate.date)).toEqual(["2025-05-05", "2025-05-02"]);
    expect(body.rates[0]).toMatchObject({
      previous: { date: "2025-05-02", dollar: 87.5681 },
      change: 1.0724,
      change_percent: 1.2246,
    });
    expect(body.rates[1]).toMatchObject({
      previous: { date: "2025-04-30", dollar: 86.8465 },
      change: 0.7216,
      change_percent: 0.8309,
      changes: {
        EUR: { previous_date: "2025-04-30", previous: 99.01282618, change: 0.4697895, change_percent: 0.4745 },
      },
    });
  });

  it("GET /rates/: the newest date's change", async () => {
    // 1 July 2025 108.1891 after 30 June 107.6245: 0.5646, 0.5646 / 107.6245 * 100 = 0.524601... -> 0.5246.
    expect(await read("/rates/?include=change")).toEqual({
      dollar: 108.1891,
      date: "2025-07-01",
      previous: { date: "2025-06-30", dollar: 107.6245 },
      change: 0.5646,
      change_percent: 0.5246,
    });
  });

  it("with in_force=true, the change of the value date in force", async () => {
    expect(await read("/rates/2025-05-03?in_force=true&include=change")).toEqual({
      dollar: 87.5681,
      date: "2025-05-03",
      value_date: "2025-05-02",
      previous: { date: "2025-04-30", dollar: 86.8465 },
      change: 0.7216,
      change_percent: 0.8309,
    });
  });

  it("without it, the responses are byte for byte what they were, with their own ETags", async () => {
    expect(rateText(await (await app.fetch("/rates/2025-05-02")).text())).toBe(
      '{"dollar":87.5681,"date":"2025-05-02"}',
    );
    expect(rateText(await (await app.fetch("/rates/2025-05-02?currencies=EUR")).text())).toBe(
      '{"dollar":87.5681,"date":"2025-05-02","rates":{"EUR":99.48261568}}',
    );
    const plain = await expectConditionalGet(app, "/rates/history?start_date=2025-05-01&end_date=2025-05-05");
    const withChange = await expectConditionalGet(
      app,
      "/rates/history?start_date=2025-05-01&end_date=2025-05-05&include=change",
    );
    expect(withChange).not.toBe(plain);
  });

  it("answers 400 naming include for anything but change", async () => {
    const response = await app.fetch("/rates/?include=changes");
    expect(response.status).toBe(400);
    expect((await response.json()).errors).toEqual([
      { field: "query.include", message: 'must be "change", the only extra this endpoint adds' },
    ]);
  });
});
