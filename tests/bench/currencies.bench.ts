import { afterAll, beforeAll, bench, describe } from "vitest";
import { type AppServer, startAppServer } from "../support/app-server";
import { deleteAllRates, seedRates, shiftDate } from "../support/rates";
import { registerAndGetToken } from "../support/users";
import { Q1_2025, readWorkbook } from "../support/workbooks";

/**
 * The figures, through HTTP to the built app and its SQLite file:
 * - POST /rates/import of the bank's first-quarter workbook (58 sheets, 21 currencies: 1,218 rates) into an
 *   empty history, and again over itself (every date unchanged);
 * - a one-year history read with currencies=all (366 dates x 21 currencies) against the same read without
 *   `currencies` (the dollar only) as the baseline.
 */
const END_DATE = "2026-11-20";
const START_DATE = shiftDate(END_DATE, -365);
const HISTORY = `/rates/history?start_date=${START_DATE}&end_date=${END_DATE}`;
const OTHERS = [
  "EUR",
  "CNY",
  "TRY",
  "RUB",
  "CAD",
  "INR",
  "JPY",
  "ARS",
  "BRL",
  "CLP",
  "COP",
  "UYU",
  "PEN",
  "BOB",
  "MXN",
  "CUC",
  "NIO",
  "DOP",
  "TTD",
  "ANG",
];

let app: AppServer;
let authorization: Record<string, string>;
const workbook = readWorkbook(Q1_2025);

function importQ1() {
  const form = new FormData();
  form.append("file", new Blob([workbook as Uint8Array<ArrayBuffer>]), "2_1_2a25_smc.xls");
  return app.fetch("/rates/import", { method: "POST", headers: authorization, body: form });
}

async function expectOk(response: Response) {
  if (response.status !== 200) throw new Error(`answered ${response.status}: ${await response.text()}`);
  await response.arrayBuffer();
}

beforeAll(async () => {
  app = await startAppServer();
  ({ authorization } = await registerAndGetToken(app));
});
afterAll(() => app?.stop());

describe("workbook import over HTTP", () => {
  bench(
    "POST /rates/import, first quarter 2025 into an empty history (58 sheets, 1,218 rates)",
    async () => {
      deleteAllRates(app);
      await expectOk(await importQ1());
    },
    { time: 10_000, iterations: 5, warmupIterations: 1 },
  );
  bench("POST /rates/import, the same file again (nothing changes)", async () => expectOk(await importQ1()), {
    time: 10_000,
    iterations: 5,
    warmupIterations: 1,
    setup: async () => {
      deleteAllRates(app);
      await expectOk(await importQ1());
    },
  });
});

describe("one year of history with every currency", () => {
  beforeAll(() => {
    deleteAllRates(app);
    seedRates(
      app,
      Array.from({ length: 366 }, (_, day) => ({
        date: shiftDate(START_DATE, day),
        dollar: (100 + day * 0.3712).toFixed(8),
        others: Object.fromEntries(OTHERS.map((code, index) => [code, ((index + 1) * 1.2345 + day * 0.01).toFixed(8)])),
      })),
    );
  });
  bench("GET /rates/history, 366 days, dollar only (baseline)", async () => expectOk(await app.fetch(HISTORY)), {
    time: 4_000,
    warmupTime: 500,
  });
  bench(
    "GET /rates/history, 366 days, currencies=all (21 currencies)",
    async () => expectOk(await app.fetch(`${HISTORY}&currencies=all`)),
    {
      time: 4_000,
      warmupTime: 500,
    },
  );
});
