import { afterAll, beforeAll, bench, describe } from "vitest";
import { startAppServer, type AppServer } from "../support/app-server";
import { seedRates, shiftDate } from "../support/rates";

/**
 * The widest history read (3660 days, one rate a day: 3661 rows) against GET /rates/ (one row) as the
 * baseline, through HTTP to the built app and its SQLite file. The ratio is what a full-range history costs
 * over the cheapest read; run with `npm run bench`.
 */
const END_DATE = "2026-12-03";
const START_DATE = shiftDate(END_DATE, -3660);
const HISTORY_PATH = `/rates/history?start_date=${START_DATE}&end_date=${END_DATE}`;

let app: AppServer;
beforeAll(async () => {
  app = await startAppServer();
  const rates = Array.from({ length: 3661 }, (_, day) => ({
    date: shiftDate(START_DATE, day),
    dollar: (36 + day * 0.05471234).toFixed(8),
  }));
  seedRates(app, rates);
  const check = await (await app.fetch(HISTORY_PATH)).json();
  if (check.rates?.length !== 3661) throw new Error(`history answered ${JSON.stringify(check).slice(0, 200)}`);
});
afterAll(() => app?.stop());

async function read(path: string) {
  const response = await app.fetch(path);
  if (response.status !== 200) throw new Error(`${path} answered ${response.status}`);
  await response.arrayBuffer();
}

describe("rate reads over HTTP", () => {
  bench("GET /rates/ (baseline)", () => read("/rates/"), { time: 4_000, warmupTime: 500 });
  bench("GET /rates/history, 3660 days (3661 rates)", () => read(HISTORY_PATH), { time: 4_000, warmupTime: 500 });
});
