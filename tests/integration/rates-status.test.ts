import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AppServer, startAppServer } from "../support/app-server";
import { type BcvServer, startBcvServer } from "../support/bcv-server";
import { deleteAllRates, seedRates, shiftDate } from "../support/rates";
import { registerAndGetToken } from "../support/users";

// Caracas keeps UTC-4 all year. The bank publishes, on each weekday by 17:00 there, the next weekday's rate.
const caracasNow = () => new Date(Date.now() - 4 * 3_600_000);
const isWeekday = (date: string) => ![0, 6].includes(new Date(`${date}T00:00:00Z`).getUTCDay());
const nextWeekday = (date: string) => {
  let day = shiftDate(date, 1);
  while (!isWeekday(day)) day = shiftDate(day, 1);
  return day;
};
/** The value date due by now, worked out here on its own, without the app's helpers. */
function expectedValueDate(): string {
  const now = caracasNow();
  const today = now.toISOString().slice(0, 10);
  let published = today;
  if (!isWeekday(today) || now.getUTCHours() < 17) {
    published = shiftDate(today, -1);
    while (!isWeekday(published)) published = shiftDate(published, -1);
  }
  return nextWeekday(published);
}
const weekdaysAfter = (from: string, to: string) => {
  let count = 0;
  for (let day = shiftDate(from, 1); day <= to; day = shiftDate(day, 1)) if (isWeekday(day)) count++;
  return count;
};

let bcv: BcvServer;
let app: AppServer;
let authorization: Record<string, string>;
const startedAt = Date.now();
const due = expectedValueDate();

beforeAll(async () => {
  bcv = await startBcvServer();
  // The bank has published the value date due now ("240,5" bolivares per dollar).
  bcv.setRate({ dollar: "240,50000000", date: due });
  // The schedule on: it fetches at once, then hourly.
  app = await startAppServer({ BCV_URL: bcv.url, BCV_RETRIES: "0", RATES_FETCH_INTERVAL_SECONDS: "3600" });
  ({ authorization } = await registerAndGetToken(app));
});
afterAll(async () => {
  await app?.stop();
  await bcv?.stop();
});

async function status() {
  const response = await app.fetch("/rates/status");
  expect(response.status).toBe(200);
  expect(response.headers.get("cache-control")).toBe("no-store");
  return response.json();
}

describe("GET /rates/status", () => {
  it("healthy: the scheduled fetch stored the value date due, nothing is stale, the next fetch is an hour on", async () => {
    let body = await status();
    for (let tries = 0; body.last_success === null && tries < 100; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      body = await status();
    }
    expect(body).toMatchObject({
      source: { name: "Banco Central de Venezuela", url: "https://www.bcv.org.ve/" },
      newest_value_date: due,
      expected_value_date: due,
      stale: false,
      business_days_missed: 0,
      stale_after: "17:00 America/Caracas",
      last_success: {
        trigger: "schedule",
        created: true,
        value_date: due,
        dollar: 240.5,
        currencies: ["USD", "EUR", "CNY", "TRY", "RUB"],
      },
      last_failure: null,
    });
    expect(Date.parse(body.last_success.at)).toBeGreaterThanOrEqual(startedAt);
    const next = Date.parse(body.next_fetch_at);
    expect(next).toBeGreaterThan(Date.now());
    expect(next).toBeLessThanOrEqual(Date.now() + 3600_000);
  });

  it("a failing bank: the last failure with its kind, the last success kept", async () => {
    const before = await status();
    bcv.setScenario("error-500");
    const failedAt = Date.now();
    expect((await app.fetch("/rates/", { method: "POST", headers: authorization })).status).toBe(502);
    const body = await status();
    expect(body.last_failure).toMatchObject({
      trigger: "request",
      kind: "bad-status",
      detail: expect.stringContaining("500"),
    });
    expect(Date.parse(body.last_failure.at)).toBeGreaterThanOrEqual(failedAt - 1000);
    expect(body.last_success).toEqual(before.last_success);
    expect(body.stale).toBe(false);
    bcv.setScenario("ok");
  });

  it("a stale day: the newest value date ten days old, the business days missed counted", async () => {
    deleteAllRates(app);
    const old = shiftDate(due, -10);
    seedRates(app, [{ date: old, dollar: "230.1" }]);
    expect(await status()).toMatchObject({
      newest_value_date: old,
      expected_value_date: due,
      stale: true,
      business_days_missed: weekdaysAfter(old, due),
    });
  });

  it("nothing stored at all: stale, without a count", async () => {
    deleteAllRates(app);
    expect(await status()).toMatchObject({ newest_value_date: null, stale: true, business_days_missed: null });
  });

  it("every rate response names its source in a Link header", async () => {
    seedRates(app, [{ date: due, dollar: "240.5" }]);
    const link = '<https://www.bcv.org.ve/>; rel="via"; title="Banco Central de Venezuela"';
    for (const path of [
      "/rates/",
      `/rates/${due}`,
      "/rates/history",
      "/currencies",
      "/convert?amount=1&from=USD&to=VES",
      "/rates/status",
    ]) {
      const response = await app.fetch(path);
      expect(response.status, path).toBe(200);
      expect(response.headers.get("link"), path).toBe(link);
    }
    const etag = (await app.fetch("/rates/")).headers.get("etag")!;
    const notModified = await app.fetch("/rates/", { headers: { "If-None-Match": etag } });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get("link")).toBe(link);
  });
});
