import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AppServer, startAppServer } from "../support/app-server";
import { type BcvServer, startBcvServer } from "../support/bcv-server";
import { readStoredRates, shiftDate, todayAtOffset } from "../support/rates";

const valueDate = shiftDate(todayAtOffset(-4), 1);

let bcv: BcvServer;
let app: AppServer;
beforeAll(async () => {
  // The bank is down when the app starts.
  bcv = await startBcvServer({ scenario: "error-500" });
  bcv.setRate({ dollar: "244,25000000", date: valueDate });
  app = await startAppServer({
    BCV_URL: bcv.url,
    BCV_RETRIES: "0",
    // An hour between scheduled fetches; a failed one is retried after 1 s, 2 s, 4 s ...
    RATES_FETCH_INTERVAL_SECONDS: "3600",
    RATES_RETRY_BASE_SECONDS: "1",
  });
});
afterAll(async () => {
  await app?.stop();
  await bcv?.stop();
});

async function waitFor<T>(read: () => T | undefined | Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("scheduled rate fetches when the central bank is down (RATES_RETRY_BASE_SECONDS)", () => {
  it("retry soon with backoff instead of waiting a whole interval, and store the rate once the bank answers", async () => {
    // The fetch at start and two retries, all within seconds of an hourly schedule.
    await waitFor(() => (bcv.requests >= 3 ? true : undefined));
    expect(readStoredRates(app)).toHaveLength(0);

    // GET /rates/status announces the retry, not the next hourly tick.
    const status = await (await app.fetch("/rates/status")).json();
    expect(status.last_failure).toMatchObject({ trigger: "schedule" });
    const untilNext = Date.parse(status.next_fetch_at) - Date.now();
    expect(untilNext).toBeLessThan(60_000);

    bcv.setScenario("ok");
    const stored = await waitFor(() => readStoredRates(app).find((rate) => rate.date === valueDate));
    expect(stored.dollar).toBe("244.25000000");

    // After a success the schedule is back to its interval: the next fetch is the hourly tick.
    const after = await (await app.fetch("/rates/status")).json();
    expect(Date.parse(after.next_fetch_at) - Date.now()).toBeGreaterThan(50 * 60_000);
    const requestsAfterSuccess = bcv.requests;
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(bcv.requests).toBe(requestsAfterSuccess);
  });
});
