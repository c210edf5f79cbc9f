import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type AppServer, startAppServer } from "../support/app-server";
import { type BcvServer, startBcvServer } from "../support/bcv-server";
import { deleteAllRates, readAllStoredRates, readStoredRates, shiftDate, todayAtOffset } from "../support/rates";
import { registerAndGetToken } from "../support/users";

// What the central bank's site says is checked before it is stored: an attack that took
// over or imitated the bank's page could otherwise set the rate everyone is served.
let bcv: BcvServer;
let app: AppServer;
let authorization: Record<string, string>;
beforeAll(async () => {
  // Slow answers and long backoffs keep one fetch in flight while all 20 simultaneous calls arrive.
  bcv = await startBcvServer({ slowMs: 1_500 });
  app = await startAppServer({ BCV_URL: bcv.url, BCV_TIMEOUT_MS: "3000", BCV_RETRIES: "2", BCV_RETRY_DELAY_MS: "400" });
  ({ authorization } = await registerAndGetToken(app));
});
afterAll(async () => {
  await app?.stop();
  await bcv?.stop();
});
beforeEach(() => {
  bcv.setScenario("ok");
  bcv.setRate(undefined);
  deleteAllRates(app);
});

const fetchRate = () => app.fetch("/rates/", { method: "POST", headers: authorization });
const today = todayAtOffset(-4);

async function expectNothingStored(response: Response, status = 502): Promise<string> {
  expect(response.status).toBe(status);
  expect(response.headers.get("content-type")).toBe("application/problem+json");
  const { detail } = await response.json();
  expect(detail).toMatch(/^Could not get the rate from the central bank: .*\. Nothing was stored\.$/);
  expect(readAllStoredRates(app)).toEqual([]);
  expect((await app.fetch("/rates/")).status).toBe(404);
  return detail;
}

describe("POST /rates/ accepts only plausible values from the central bank", () => {
  it("refuses a 400-digit dollar value instead of storing it and serving null", async () => {
    bcv.setRate({ dollar: "9".repeat(400), date: today });
    const detail = await expectNothingStored(await fetchRate());
    expect(detail).toContain("has 400 digits before the decimal point and 0 after; a rate has at most 12 and 12");
  });

  it("refuses a value with more decimals than a rate has", async () => {
    bcv.setRate({ dollar: `236,${"4".repeat(30)}`, date: today });
    expect(await expectNothingStored(await fetchRate())).toContain("30 after");
  });

  it("refuses the value date 9999-12-31, which would have become the latest rate for good", async () => {
    bcv.setRate({ dollar: "236,45870000", date: "9999-12-31" });
    const detail = await expectNothingStored(await fetchRate());
    expect(detail).toContain(`gives the value date 9999-12-31, which is more than 7 days after today (${today})`);
  });

  it("refuses value dates far from today either way, and accepts those near it", async () => {
    bcv.setRate({ dollar: "236,45870000", date: shiftDate(today, 8) });
    await expectNothingStored(await fetchRate());
    bcv.setRate({ dollar: "236,45870000", date: shiftDate(today, -60) });
    expect(await expectNothingStored(await fetchRate())).toContain("is more than 14 days before today");

    for (const days of [7, -14, 3, -2]) {
      bcv.setRate({ dollar: "236,45870000", date: shiftDate(today, days) });
      expect((await fetchRate()).status).toBe(201);
    }
    expect(readStoredRates(app)).toHaveLength(4);
  });
});

describe("POST /rates/ shares one fetch in flight", () => {
  it("20 simultaneous calls to a failing bank make one fetch with its retries, not 60 requests", async () => {
    bcv.setScenario("error-500");
    const before = bcv.requests;
    const responses = await Promise.all(Array.from({ length: 20 }, () => fetchRate()));
    expect(responses.map((response) => response.status)).toEqual(Array(20).fill(502));
    // One fetch: the first attempt and two retries.
    expect(bcv.requests - before).toBe(3);
  });

  it("20 simultaneous calls to a slow bank read the page once and store the rate once", async () => {
    bcv.setScenario("slow");
    const before = bcv.requests;
    const responses = await Promise.all(Array.from({ length: 20 }, () => fetchRate()));
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([...Array(19).fill(200), 201]);
    expect(bcv.requests - before).toBe(1);
    const bodies = await Promise.all(responses.map((response) => response.json()));
    expect(new Set(bodies.map((body) => body.id)).size).toBe(1);
    expect(readStoredRates(app)).toEqual([{ id: bodies[0].id, date: today, dollar: "236.45870000" }]);
  });

  it("a call after the previous fetch ended fetches again", async () => {
    const before = bcv.requests;
    await fetchRate();
    await fetchRate();
    expect(bcv.requests - before).toBe(2);
  });
});

describe("POST /rates/ follows no redirect to another host", () => {
  it("refuses a redirect from 127.0.0.1 to localhost, without requesting it", async () => {
    bcv.setScenario("redirect-other-host");
    const before = bcv.requests;
    const detail = await expectNothingStored(await fetchRate());
    const { port } = new URL(bcv.url);
    expect(detail).toContain(`${bcv.url} redirected to http://localhost:${port}, another host`);
    expect(bcv.requests - before).toBe(1);
  });

  it("follows a redirect within the same host", async () => {
    bcv.setScenario("redirect-same-host");
    const response = await fetchRate();
    expect(response.status).toBe(201);
    expect(await response.json()).toMatchObject({ dollar: 236.4587, date: today });
  });
});
