import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAppServer, type AppServer } from "../support/app-server";
import { startBcvServer, type BcvServer } from "../support/bcv-server";
import { readStoredRates } from "../support/rates";

let bcv: BcvServer;
let app: AppServer;
beforeAll(async () => {
  bcv = await startBcvServer();
  bcv.setRate({ dollar: "241,50000000", date: "2026-11-24" });
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
    const first = await waitFor(() => readStoredRates(app).find((rate) => rate.date === "2026-11-24"));
    expect(first.dollar).toBe("241.50000000");
    expect((await (await app.fetch("/rates/")).json()).dollar).toBe(241.5);

    bcv.setRate({ dollar: "242,75000000", date: "2026-11-25" });
    await waitFor(() => readStoredRates(app).find((rate) => rate.date === "2026-11-25"));
    expect(readStoredRates(app).map((rate) => rate.date)).toEqual(["2026-11-24", "2026-11-25"]);
  });

  it("survive a central bank that fails, storing nothing until it answers again", async () => {
    bcv.setScenario("error-500");
    const before = bcv.requests;
    await waitFor(() => (bcv.requests >= before + 3 ? true : undefined));
    expect(readStoredRates(app)).toHaveLength(2);
    bcv.setScenario("ok");
    bcv.setRate({ dollar: "243,00000000", date: "2026-11-26" });
    await waitFor(() => readStoredRates(app).find((rate) => rate.date === "2026-11-26"));
  });
});
