import fs from "node:fs";
import https from "node:https";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BcvClientConfig, fetchOfficialRate, RateSourceError, USER_AGENT } from "@/lib/rates/bcv-client";
import { todayIn } from "@/lib/rates/dates";
import { type BcvServer, startBcvServer } from "../support/bcv-server";

// The client against the local stand-in, with the settings passed in rather than read from the environment.
let bcv: BcvServer;
let config: BcvClientConfig;
beforeAll(async () => {
  bcv = await startBcvServer({ slowMs: 2_000 });
  config = { url: bcv.url, timeoutMs: 300, retries: 2, retryDelayMs: 10, timeZone: "America/Caracas" };
});
afterAll(() => bcv?.stop());

async function failure(promise: Promise<unknown>): Promise<RateSourceError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(RateSourceError);
  return error as RateSourceError;
}

describe("fetchOfficialRate", () => {
  it("reads the page with a User-Agent", async () => {
    bcv.setScenario("ok");
    // The stand-in shows the fixture's values under today's date in Caracas.
    expect(await fetchOfficialRate(config)).toEqual({
      dollar: "236.45870000",
      date: todayIn("America/Caracas"),
      rates: { USD: "236.45870000", EUR: "275.43890812", CNY: "33.12094517", TRY: "5.61722039", RUB: "2.93270416" },
      skipped: [],
    });
    expect(bcv.lastUserAgent).toBe(USER_AGENT);
  });

  it("falls back to today in the configured zone when the page gives no date", async () => {
    bcv.setScenario("no-date");
    const zone = "Pacific/Kiritimati";
    const before = todayIn(zone);
    const { date } = await fetchOfficialRate({ ...config, timeZone: zone });
    expect([before, todayIn(zone)]).toContain(date);
  });

  it("retries a 500 and then reports the status and the number of attempts", async () => {
    bcv.setScenario("error-500");
    const requestsBefore = bcv.requests;
    const error = await failure(fetchOfficialRate(config));
    expect(bcv.requests - requestsBefore).toBe(3);
    expect(error.kind).toBe("bad-status");
    expect(error.message).toMatch(/answered HTTP 500 .*\(3 attempts\)/);
  });

  it("gives up on a slow page after the timeout, per attempt", async () => {
    bcv.setScenario("slow");
    const requestsBefore = bcv.requests;
    const started = Date.now();
    const error = await failure(fetchOfficialRate({ ...config, retries: 1 }));
    expect(error.kind).toBe("timeout");
    expect(error.message).toContain("did not answer within 300 ms (2 attempts)");
    expect(bcv.requests - requestsBefore).toBe(2);
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it("refuses a certificate it cannot verify, and does not retry", async () => {
    const fixtures = path.resolve(import.meta.dirname, "..", "fixtures");
    let connections = 0;
    const server = https.createServer({
      key: fs.readFileSync(path.join(fixtures, "self-signed.key.pem")),
      cert: fs.readFileSync(path.join(fixtures, "self-signed.cert.pem")),
    });
    server.on("connection", () => connections++);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const error = await failure(fetchOfficialRate({ ...config, url: `https://127.0.0.1:${port}/` }));
      expect(error).toMatchObject({ kind: "unreachable", transient: false });
      expect(error.message).toMatch(
        /TLS certificate .* could not be verified \(\w+\).*NODE_EXTRA_CA_CERTS.*\(1 attempt\)/,
      );
      expect(connections).toBe(1);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
