import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AppServer, startAppServer } from "../support/app-server";
import { waitFor } from "../support/auto-builds";
import { openStalledPipeline } from "../support/pipelining";
import { BANK_CURRENCIES, seedRates, shiftDate } from "../support/rates";
import { MB, residentBytes } from "../support/sse";

// GET /rates/history?format=csv|ndjson streams at most RATES_EXPORT_MAX_STREAMS exports at once, in the whole
// server: one more is answered 503 with Retry-After before it reads anything, however the exports
// came (pipelined on one connection, or on many), while the JSON reads go on answering.
const END = "2026-11-20";
const START = shiftDate(END, -3660);
// Ten years of every currency: about 1 MB of CSV, 1.8 MB of JSON.
const TEN_YEARS = `start_date=${START}&end_date=${END}&currencies=all`;
const EXPORT = `/rates/history?${TEN_YEARS}&format=csv`;
const MAX_STREAMS = 3;
const IDLE_SECONDS = 5;

let app: AppServer;
beforeAll(async () => {
  app = await startAppServer({
    RATES_EXPORT_MAX_STREAMS: String(MAX_STREAMS),
    RATES_EXPORT_IDLE_SECONDS: String(IDLE_SECONDS),
  });
  seedRates(
    app,
    Array.from({ length: 3661 }, (_, day) => ({
      date: shiftDate(START, day),
      dollar: `${100 + day}.${String(day).padStart(8, "0")}`,
      others: Object.fromEntries(
        BANK_CURRENCIES.slice(1).map((code, column) => [
          code,
          `${column + 1}.${String(day * 31 + column).padStart(8, "0")}`,
        ]),
      ),
    })),
  );
});
afterAll(() => app?.stop());

/** A small export, as a client that reads would ask for it. */
const smallExport = () => app.fetch(`/rates/history?start_date=${shiftDate(END, -9)}&end_date=${END}&format=csv`);

describe("GET /rates/history exports: at most RATES_EXPORT_MAX_STREAMS at once", () => {
  it("one more export than the limit is answered 503 with Retry-After; the JSON reads still answer; the slots come back when their client goes", async () => {
    // Four JSON histories fill the connection's buffers (a few MB on loopback); the exports after them wait
    // behind, each holding its slot, for as long as nobody reads.
    const jsonHistory = `/rates/history?${TEN_YEARS}`;
    const stalled = await openStalledPipeline(app.baseUrl, [
      ...Array.from({ length: 4 }, (_, index) => `${jsonHistory}&_=filler-${index}`),
      ...Array.from({ length: MAX_STREAMS + 2 }, (_, index) => `${EXPORT}&_=${index}`),
    ]);
    try {
      // Answered after the pipeline was sent: by then its requests have been taken up.
      expect((await app.fetch("/healthz")).status).toBe(200);
      const refused = await waitFor("an export refused", async () => {
        const response = await smallExport();
        if (response.status === 200) return void (await response.arrayBuffer());
        return response;
      });
      expect(refused.status).toBe(503);
      expect(refused.headers.get("content-type")).toBe("application/problem+json");
      expect(refused.headers.get("retry-after")).toBe("5");
      const problem = await refused.json();
      expect(problem).toMatchObject({ status: 503, title: "Service Unavailable" });
      expect(problem.detail).toContain(`${MAX_STREAMS} history exports are being streamed already`);
      expect(problem.detail).toContain("RATES_EXPORT_MAX_STREAMS");
      // NDJSON is an export too; the JSON history and the rest are not limited.
      expect((await app.fetch(`/rates/history?start_date=${END}&end_date=${END}&format=ndjson`)).status).toBe(503);
      const history = await app.fetch(
        `/rates/history?start_date=${shiftDate(END, -30)}&end_date=${END}&currencies=all`,
      );
      expect(history.status).toBe(200);
      expect((await history.json()).rates).toHaveLength(31);
      expect((await app.fetch("/rates")).status).toBe(200);
    } finally {
      stalled.destroy();
    }
    // Its client gone, the stalled exports end and give their slots back (at the latest after the idle bound).
    const again = await waitFor(
      "an export served again",
      async () => {
        const response = await smallExport();
        return response.status === 200 ? response : void (await response.arrayBuffer());
      },
      (IDLE_SECONDS + 20) * 1000,
    );
    expect((await again.text()).split("\r\n").filter(Boolean)).toHaveLength(11);
  });

  it("three connections that pipeline twelve ten-year exports each and never read: the exports beyond the limit are refused, not made", async () => {
    const before = residentBytes(app.pid);
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, residentBytes(app.pid))), 25);
    const connections = await Promise.all(
      [1, 2, 3].map((reader) =>
        openStalledPipeline(
          app.baseUrl,
          Array.from({ length: 12 }, (_, index) => `${EXPORT}&_=${reader}-${index}`),
        ),
      ),
    );
    let received: string[];
    try {
      for (let round = 0; round < 3; round++) {
        expect((await app.fetch("/healthz")).status).toBe(200);
        expect(
          (await app.fetch(`/rates/history?start_date=${shiftDate(END, -30)}&end_date=${END}&currencies=all`)).status,
        ).toBe(200);
      }
    } finally {
      clearInterval(sampler);
    }
    console.info(
      `3 connections x 12 pipelined exports, never read: server RSS ${(before / MB).toFixed(0)} MB before, +${((peak - before) / MB).toFixed(1)} MB at most`,
    );
    try {
      received = await Promise.all(connections.map((connection) => connection.resume()));
    } finally {
      for (const connection of connections) connection.destroy();
    }
    const statuses = received.flatMap((text) =>
      [...text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((match) => Number(match[1])),
    );
    // Each answer is an export or a refusal; never an error.
    expect(statuses.filter((status) => status !== 200 && status !== 503)).toEqual([]);
    // 36 asked at once, 3 streamed at once: most were refused before reading anything.
    expect(statuses.filter((status) => status === 503).length).toBeGreaterThanOrEqual(36 - 4 * MAX_STREAMS);
    expect(received.join("").match(/Retry-After: 5/gi)?.length).toBe(
      statuses.filter((status) => status === 503).length,
    );
  }, 120_000);
});
