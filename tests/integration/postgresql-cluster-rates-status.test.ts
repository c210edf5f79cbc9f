import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AppServer, startAppServer } from "../support/app-server";
import { type BcvServer, startBcvServer } from "../support/bcv-server";
import { queryDatabase } from "../support/database";

/**
 * PostgreSQL only (project integration-postgresql): GET /rates/status says when the schedule fetches next, and only
 * the instance that runs the schedule (the holder of its lease) has the timers that decide it. After a failed
 * fetch the holder retries long before the interval's tick (RATES_RETRY_BASE_SECONDS); the other instance reads
 * what the holder announced beside its lease, so both say the same time.
 */
let bcv: BcvServer;
const instances = new Map<string, AppServer>();

function instanceEnv(name: string, databaseUrl?: string): Record<string, string> {
  return {
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    INSTANCE_NAME: name,
    BCV_URL: bcv.url,
    BCV_RETRIES: "0",
    // An hour between scheduled fetches; a failed one is retried after 30 s, then 60 s ...
    RATES_FETCH_INTERVAL_SECONDS: "3600",
    RATES_RETRY_BASE_SECONDS: "30",
  };
}

beforeAll(async () => {
  // The bank is down: the schedule's first fetch fails and a retry is pending.
  bcv = await startBcvServer({ scenario: "error-500" });
  const alpha = await startAppServer(instanceEnv("alpha"));
  instances.set("alpha", alpha);
  instances.set("beta", await startAppServer(instanceEnv("beta", alpha.databaseUrl)));
});
afterAll(async () => {
  await instances.get("beta")?.stop();
  await instances.get("alpha")?.stop();
  await bcv?.stop();
});

async function nextFetchThrough(name: string): Promise<{ next_fetch_at: string | null; last_failure: unknown }> {
  return (await instances.get(name)!.fetch("/rates/status")).json();
}

describe("GET /rates/status with two instances and a failed scheduled fetch", () => {
  it("announces the holder's retry through either instance, the same time", { timeout: 60_000 }, async () => {
    const deadline = Date.now() + 45_000;
    let holder: string | undefined;
    let other: string | undefined;
    // Once the holder's first fetch failed and the other instance, too, tells of a retry well before the hourly tick
    // (the holder announces it as its fetch ends).
    for (;;) {
      holder = queryDatabase<{ holder: string }>(
        instances.get("alpha")!,
        `SELECT "holder" FROM "JobLease" WHERE "name" = 'rate schedule'`,
      )[0]?.holder;
      other = holder === "alpha" ? "beta" : "alpha";
      const status = holder ? await nextFetchThrough(other) : undefined;
      if (status?.last_failure && Date.parse(status.next_fetch_at!) - Date.now() < 60_000) break;
      if (Date.now() > deadline) throw new Error(`${other} never told of the retry: ${JSON.stringify(status)}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const [there, here] = [await nextFetchThrough(other), await nextFetchThrough(holder!)];
    expect(here.next_fetch_at).not.toBeNull();
    expect(there.next_fetch_at).toBe(here.next_fetch_at);
  });
});
