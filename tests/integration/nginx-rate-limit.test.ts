import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AppServer, sharedAppServer } from "../support/app-server";
import { type NginxServer, startNginx } from "../support/nginx";
import { seedRates, shiftDate } from "../support/rates";
import { registerAndGetToken } from "../support/users";

/**
 * The anonymous-read limit of the shipped nginx configuration (deploy/nginx/bcv-rates.conf): 10 uncached reads
 * a second per client address, bursts of 50, then 429 with Retry-After from nginx; cache hits and requests
 * with credentials are not counted against it. All on loopback, one client address (127.0.0.1).
 */
let app: AppServer;
let nginx: NginxServer;
let authorization: Record<string, string>;
const FIRST = "2020-01-01";
// More distinct dates than any burst below asks: each first read is a cache miss that reaches the app.
const dates = Array.from({ length: 600 }, (_, day) => shiftDate(FIRST, day));

beforeAll(async () => {
  app = await sharedAppServer();
  seedRates(
    app,
    dates.map((date, day) => ({ date, dollar: `${100 + day}.5` })),
  );
  nginx = await startNginx({ appPort: Number(new URL(app.baseUrl).port) });
  ({ authorization } = await registerAndGetToken(app));
});
afterAll(async () => {
  await nginx?.stop();
  await app?.stop();
});

let next = 0;
/** `count` concurrent reads of dates never read before through nginx: every one a miss. */
const missBurst = (count: number, headers: Record<string, string> = {}) =>
  Promise.all(dates.slice(next, (next += count)).map((date) => fetch(`${nginx.baseUrl}/rates/${date}`, { headers })));

describe("nginx and the history's exports", () => {
  it("caches an export asked with format=, passes one negotiated by Accept through, and never mixes them up", async () => {
    const path = `/rates/history?start_date=${FIRST}&end_date=${dates[9]}`;
    const csv = `${nginx.baseUrl}${path}&format=csv`;
    const first = await fetch(csv);
    expect(first.headers.get("content-type")).toMatch(/^text\/csv/);
    expect((await first.text()).split("\r\n")[0]).toBe("date,USD");
    const again = await fetch(csv);
    expect(again.headers.get("x-cache-status")).toBe("HIT");
    expect(await again.text()).toContain(`${dates[9]},109.5`);

    const json = await fetch(nginx.baseUrl + path);
    expect(json.headers.get("content-type")).toBe("application/json");
    await json.body?.cancel();
    for (let round = 0; round < 2; round++) {
      const negotiated = await fetch(nginx.baseUrl + path, { headers: { Accept: "text/csv" } });
      expect(negotiated.headers.get("content-type")).toMatch(/^text\/csv/);
      expect(negotiated.headers.get("x-cache-status")).toBe("BYPASS");
      await negotiated.body?.cancel();
    }
    const jsonAgain = await fetch(nginx.baseUrl + path);
    expect(jsonAgain.headers.get("content-type")).toBe("application/json");
    expect(jsonAgain.headers.get("x-cache-status")).toBe("HIT");
    await jsonAgain.body?.cancel();
  });
});

describe("nginx's limit on anonymous reads", () => {
  it("answers 429 with Retry-After past 50 quick uncached reads from one address; hits and credentials go on", async () => {
    // Warmed before the burst: this read is a cache hit from now on.
    const cached = `${nginx.baseUrl}/rates/${FIRST}`;
    expect((await fetch(cached)).status).toBe(200);
    next = 1;
    // The reads of the test above and the warm-up were counted too: at 10 a second their excess drains in well
    // under a second, so after this pause the burst meets an empty bucket (1 + 50 served at once).
    await new Promise((resolve) => setTimeout(resolve, 1_500));

    const anonymous = await missBurst(120);
    const refused = anonymous.filter((response) => response.status === 429);
    const served = anonymous.filter((response) => response.status === 200);
    expect(served.length + refused.length).toBe(120);
    expect(served.length).toBeGreaterThanOrEqual(50);
    expect(refused.length).toBeGreaterThan(0);
    const problem = refused[0];
    expect(problem.headers.get("retry-after")).toBe("1");
    expect(problem.headers.get("content-type")).toBe("application/problem+json");
    expect(await problem.json()).toMatchObject({ status: 429, title: "Too Many Requests" });
    // The app never saw those: what it served has its ETag, nginx's refusals none.
    expect(problem.headers.get("etag")).toBeNull();

    // While the anonymous limit is spent: cache hits are served...
    const hits = await Promise.all(Array.from({ length: 60 }, () => fetch(cached)));
    expect(hits.map((response) => response.status)).toEqual(Array(60).fill(200));
    expect(new Set(hits.map((response) => response.headers.get("x-cache-status")))).toEqual(new Set(["HIT"]));
    // ...and so are uncached reads with a bearer token or a session cookie, counted against their own limit.
    const withToken = await missBurst(100, authorization);
    expect(withToken.filter((response) => response.status !== 200)).toEqual([]);
    const withCookie = await missBurst(60, { Cookie: "next-auth.session-token=anything" });
    expect(withCookie.filter((response) => response.status === 429)).toEqual([]);

    for (const response of [...anonymous, ...hits, ...withToken, ...withCookie])
      if (!response.bodyUsed) await response.body?.cancel();
  });
});
