import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AppServer, startAppServer } from "../support/app-server";
import { type BcvServer, startBcvServer } from "../support/bcv-server";
import { queryDatabase } from "../support/database";
import { todayAtOffset } from "../support/rates";

/**
 * PostgreSQL only (project integration-postgresql): work that must run once across the cluster runs on the
 * instance holding its lease (lib/cluster/leases.ts). Two instances with the rate schedule on, against a local
 * stand-in of the central bank: the bank is fetched by one of them only, and when that one is killed the other
 * takes the schedule over once the lease has run out (INSTANCE_LOST_AFTER_SECONDS, 6 s here); one that stops
 * cleanly gives it back.
 */
const INTERVAL_SECONDS = 2;
const LOST_AFTER_SECONDS = 6;

let bcv: BcvServer;
const instances = new Map<string, AppServer>();

function instanceEnv(name: string, databaseUrl?: string): Record<string, string> {
  return {
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    INSTANCE_NAME: name,
    INSTANCE_LOST_AFTER_SECONDS: String(LOST_AFTER_SECONDS),
    BCV_URL: bcv.url,
    BCV_RETRIES: "0",
    RATES_FETCH_INTERVAL_SECONDS: String(INTERVAL_SECONDS),
  };
}

beforeAll(async () => {
  bcv = await startBcvServer();
  bcv.setRate({ dollar: "241,50000000", date: todayAtOffset(-4) });
  const alpha = await startAppServer(instanceEnv("alpha"));
  instances.set("alpha", alpha);
  instances.set("beta", await startAppServer(instanceEnv("beta", alpha.databaseUrl)));
});
afterAll(async () => {
  // The second shares the first's database, which the first drops when it stops.
  await instances.get("gamma")?.stop();
  await instances.get("beta")?.stop();
  await instances.get("alpha")?.stop();
  await bcv?.stop();
});

function scheduleHolder(): { holder: string; acquiredAt: string } | undefined {
  const [lease] = queryDatabase<{ holder: string; acquiredAt: string }>(
    instances.get("alpha")!,
    `SELECT "holder", "acquiredAt" FROM "JobLease" WHERE "name" = 'rate schedule'`,
  );
  return lease;
}

/** How many scheduled fetches an instance made (it logs one line for each). */
const fetchesOf = (app: AppServer) => app.output().match(/^rates: (stored|refreshed) /gm)?.length ?? 0;

async function waitFor<T>(read: () => T | undefined | false, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe("the scheduled bank fetch with two instances on one PostgreSQL", () => {
  let holder: string;
  let other: string;

  it("runs on one instance: the bank is fetched once per interval, not once per instance", {
    timeout: 60_000,
  }, async () => {
    holder = (await waitFor(scheduleHolder, "a holder of the rate schedule")).holder;
    other = holder === "alpha" ? "beta" : "alpha";
    // A few intervals of the schedule: every request the bank saw is one of the holder's fetches.
    await waitFor(() => fetchesOf(instances.get(holder)!) >= 4, "four scheduled fetches");
    const fetched = fetchesOf(instances.get(holder)!);
    expect(fetchesOf(instances.get(other)!)).toBe(0);
    // The one in flight as we count may not be logged yet.
    expect(bcv.requests - fetched).toBeGreaterThanOrEqual(0);
    expect(bcv.requests - fetched).toBeLessThanOrEqual(1);
    expect(instances.get(holder)!.output()).toContain(`cluster: ${holder} runs "rate schedule"`);
    expect(instances.get(other)!.output()).not.toContain(`runs "rate schedule"`);
  });

  it("GET /rates/status through either instance tells when the holder fetches next", async () => {
    for (const name of [holder, other]) {
      const status = await (await instances.get(name)!.fetch("/rates/status")).json();
      const next = Date.parse(status.next_fetch_at);
      // Within the next interval (the holder's tick may be due this very moment).
      expect(next).toBeGreaterThan(Date.now() - 1000);
      expect(next).toBeLessThanOrEqual(Date.now() + INTERVAL_SECONDS * 1000 + 1000);
    }
  });

  it("goes on on the other instance once the holder is killed and its lease has run out", {
    timeout: 90_000,
  }, async () => {
    const killedAt = Date.now();
    await instances.get(holder)!.stopProcess("SIGKILL");
    const before = bcv.requests;
    const survivor = instances.get(other)!;
    await waitFor(
      () => survivor.output().includes(`cluster: ${other} runs "rate schedule"`),
      "the survivor taking the schedule over",
    );
    // Not before the dead holder's lease ran out (it renewed it at most a third of the lease time before dying):
    // it might only have been slow.
    expect(Date.now() - killedAt).toBeGreaterThanOrEqual(((LOST_AFTER_SECONDS * 2) / 3) * 1000 - 500);
    await waitFor(() => fetchesOf(survivor) >= 2, "the survivor's scheduled fetches");
    expect(bcv.requests).toBeGreaterThan(before);
    expect(scheduleHolder()?.holder).toBe(other);
  });

  it("is given back by a holder that stops cleanly (SIGTERM), for the next instance to take at once", {
    timeout: 90_000,
  }, async () => {
    const gamma = await startAppServer(instanceEnv("gamma", instances.get("alpha")!.databaseUrl));
    instances.set("gamma", gamma);
    await instances.get(other)!.stopProcess("SIGTERM");
    // The process has ended: its leases are gone with it, not left to run out.
    const leftBehind = queryDatabase<{ name: string }>(
      instances.get("alpha")!,
      {
        sqlite: `SELECT "name" FROM "JobLease" WHERE "holder" = ?`,
        postgresql: `SELECT "name" FROM "JobLease" WHERE "holder" = :'params'::json->>0`,
      },
      [other],
    );
    expect(leftBehind).toEqual([]);
    await waitFor(
      () => gamma.output().includes(`cluster: gamma runs "rate schedule"`),
      "gamma taking the schedule over",
    );
    expect(scheduleHolder()?.holder).toBe("gamma");
  });
});
