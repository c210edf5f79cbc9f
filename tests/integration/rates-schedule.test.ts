import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AppServer, startAppServer } from "../support/app-server";
import { type BcvServer, startBcvServer } from "../support/bcv-server";
import { readStoredRates, shiftDate, todayAtOffset } from "../support/rates";

// Value dates near today, the only ones the app accepts from the home page.
const today = todayAtOffset(-4);
const [dayOne, dayTwo, dayThree] = [1, 2, 3].map((days) => shiftDate(today, days));

let bcv: BcvServer;
let app: AppServer;
beforeAll(async () => {
  bcv = await startBcvServer();
  bcv.setRate({ dollar: "241,50000000", date: dayOne });
  app = await startAppServer({ BCV_URL: bcv.url, RATES_FETCH_INTERVAL_SECONDS: "1", BCV_RETRY_DELAY_MS: "10" });
});
afterAll(async () => {
  await app?.stop();
  await bcv?.stop();
});

async function waitFor<T>(read: () => T | undefined, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("scheduled rate fetches (RATES_FETCH_INTERVAL_SECONDS)", () => {
  it("store the central bank's rate without any request, and keep it current", async () => {
    const first = await waitFor(() => readStoredRates(app).find((rate) => rate.date === dayOne));
    expect(first.dollar).toBe("241.50000000");
    expect((await (await app.fetch("/rates/")).json()).dollar).toBe(241.5);

    bcv.setRate({ dollar: "242,75000000", date: dayTwo });
    await waitFor(() => readStoredRates(app).find((rate) => rate.date === dayTwo));
    expect(readStoredRates(app).map((rate) => rate.date)).toEqual([dayOne, dayTwo]);
  });

  it("survive a central bank that fails, storing nothing until it answers again", async () => {
    bcv.setScenario("error-500");
    const before = bcv.requests;
    await waitFor(() => (bcv.requests >= before + 3 ? true : undefined));
    expect(readStoredRates(app)).toHaveLength(2);
    bcv.setScenario("ok");
    bcv.setRate({ dollar: "243,00000000", date: dayThree });
    await waitFor(() => readStoredRates(app).find((rate) => rate.date === dayThree));
  });
});
