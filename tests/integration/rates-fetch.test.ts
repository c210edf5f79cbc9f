import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type AppServer, startAppServer } from "../support/app-server";
import { type BcvServer, startBcvServer } from "../support/bcv-server";
import { deleteAllRates, readStoredRates, shiftDate, todayAtOffset } from "../support/rates";
import { signInWithCookie } from "../support/sessions";
import { registerAndGetToken } from "../support/users";

// The app reads the local stand-in of the central bank's site. Short timeout and backoff keep failures quick;
// two retries make three attempts.
const TIMEOUT_MS = 500;
const RETRY_DELAY_MS = 150;
// The app accepts only value dates near today: the stand-in publishes the fixture's values under
// today's date in Caracas, and the tests move from there.
const today = todayAtOffset(-4);
const tomorrow = shiftDate(today, 1);
const inThreeDays = shiftDate(today, 3);

let bcv: BcvServer;
let app: AppServer;
let authorization: Record<string, string>;
let token: string;
let credentials: { email: string; password: string };
beforeAll(async () => {
  bcv = await startBcvServer({ slowMs: 5_000 });
  app = await startAppServer({
    BCV_URL: bcv.url,
    BCV_TIMEOUT_MS: String(TIMEOUT_MS),
    BCV_RETRIES: "2",
    BCV_RETRY_DELAY_MS: String(RETRY_DELAY_MS),
  });
  const registered = await registerAndGetToken(app);
  ({ authorization, token } = registered);
  credentials = registered;
});
afterAll(async () => {
  await app?.stop();
  await bcv?.stop();
});
beforeEach(() => {
  bcv.setScenario("ok");
  bcv.setRate(undefined);
  deleteAllRates(app);
});

const fetchRate = (headers: Record<string, string> = authorization) =>
  app.fetch("/rates/", { method: "POST", headers });

describe("POST /rates/ authentication", () => {
  it("answers 401 with WWW-Authenticate without a token, and does not ask the central bank", async () => {
    const requestsBefore = bcv.requests;
    const attempts: Record<string, string>[] = [{}, { Authorization: "Bearer forged" }, { Authorization: "Token abc" }];
    for (const headers of attempts) {
      const response = await fetchRate(headers);
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toMatch(/^Bearer/);
      expect(response.headers.get("content-type")).toBe("application/problem+json");
    }
    expect(bcv.requests).toBe(requestsBefore);
    expect(readStoredRates(app)).toEqual([]);
  });

  it("accepts the signed-in browser session instead of a bearer token", async () => {
    const { sessionCookie } = await signInWithCookie(app, credentials.email, credentials.password);
    const response = await fetchRate({ Cookie: sessionCookie });
    expect(response.status).toBe(201);
  });

  it("refuses an API token sent as the session cookie: it would be refreshed for ever", async () => {
    const response = await fetchRate({ Cookie: `next-auth.session-token=${token}` });
    expect(response.status).toBe(401);
  });

  it("is served at /rates too", async () => {
    const response = await app.fetch("/rates", { method: "POST", headers: authorization, redirect: "manual" });
    expect(response.status).toBe(201);
  });
});

describe("POST /rates/ storing", () => {
  it("answers 201 for a new date, storing every published decimal under the Fecha Valor", async () => {
    const response = await fetchRate();
    expect(response.status).toBe(201);
    expect(response.headers.get("content-type")).toBe("application/json");
    const created = await response.json();
    // Today's value date: the rate in force, stored just now.
    expect(created).toEqual({
      id: expect.any(Number),
      dollar: 236.4587,
      date: today,
      in_force: true,
      published_at: expect.any(String),
    });
    expect(readStoredRates(app)).toEqual([{ id: created.id, date: today, dollar: "236.45870000" }]);
    expect(bcv.lastUserAgent).toMatch(/^bcv-runbot\//);
    expect(await (await app.fetch("/rates/")).json()).toEqual({
      dollar: 236.4587,
      date: today,
      in_force: true,
      published_at: created.published_at,
    });
  });

  it("answers 200 with the same id when the date exists, refreshing its value", async () => {
    const first = await (await fetchRate()).json();
    const again = await fetchRate();
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual(first);

    bcv.setRate({ dollar: "236,45870001", date: today });
    const refreshed = await fetchRate();
    expect(refreshed.status).toBe(200);
    // Refreshed, it keeps the moment it was first stored.
    expect(await refreshed.json()).toEqual({ ...first, dollar: 236.45870001 });
    expect(readStoredRates(app)).toEqual([{ id: first.id, date: today, dollar: "236.45870001" }]);
  });

  it("answers 201 with a new id for the next value date", async () => {
    const first = await (await fetchRate()).json();
    bcv.setRate({ dollar: "240,12345678", date: tomorrow });
    const next = await fetchRate();
    expect(next.status).toBe(201);
    const body = await next.json();
    // A value date after today: the next rate, not in force yet.
    expect(body).toEqual({
      id: expect.any(Number),
      dollar: 240.12345678,
      date: tomorrow,
      in_force: false,
      published_at: expect.any(String),
    });
    expect(body.id).not.toBe(first.id);
    expect(readStoredRates(app).map((rate) => rate.dollar)).toEqual(["236.45870000", "240.12345678"]);
  });

  it("keeps thousands-grouped values whole", async () => {
    bcv.setRate({ dollar: "1.234,56789012", date: inThreeDays });
    expect(await (await fetchRate()).json()).toMatchObject({ dollar: 1234.56789012, date: inThreeDays });
    expect(readStoredRates(app)[0].dollar).toBe("1234.56789012");
  });

  it("stores under today in RATES_TIMEZONE (America/Caracas by default) when the page gives no date", async () => {
    bcv.setScenario("no-date");
    const before = todayAtOffset(-4);
    const response = await fetchRate();
    expect(response.status).toBe(201);
    const { date } = await response.json();
    expect([before, todayAtOffset(-4)]).toContain(date);
  });

  it("retries a transient failure and stores what the next attempt reads", async () => {
    bcv.setScenario("error-500");
    const requestsBefore = bcv.requests;
    const pending = fetchRate();
    // The first attempt fails; the backoff before the retry (at least RETRY_DELAY_MS) leaves time to recover.
    while (bcv.requests === requestsBefore) await new Promise((resolve) => setTimeout(resolve, 5));
    bcv.setScenario("ok");
    const response = await pending;
    expect(response.status).toBe(201);
    expect(bcv.requests - requestsBefore).toBe(2);
  });
});

describe("POST /rates/ when the central bank fails", () => {
  /** POSTs, checks the problem and that nothing was stored, and returns the detail and attempts made. */
  async function expectFailure(status: number) {
    const requestsBefore = bcv.requests;
    const response = await fetchRate();
    expect(response.status).toBe(status);
    expect(response.headers.get("content-type")).toBe("application/problem+json");
    const problem = await response.json();
    expect(problem.status).toBe(status);
    expect(problem.detail).toMatch(/^Could not get the rate from the central bank: .*\. Nothing was stored\.$/);
    expect(readStoredRates(app)).toEqual([]);
    return { detail: problem.detail as string, attempts: bcv.requests - requestsBefore };
  }

  it("answers 502 after retrying a 500 twice", async () => {
    bcv.setScenario("error-500");
    const { detail, attempts } = await expectFailure(502);
    expect(attempts).toBe(3);
    expect(detail).toContain(`${bcv.url} answered HTTP 500 Internal Server Error (3 attempts)`);
  });

  it("answers 504 after three attempts that each time out", async () => {
    bcv.setScenario("slow");
    const started = Date.now();
    const { detail, attempts } = await expectFailure(504);
    expect(attempts).toBe(3);
    expect(detail).toContain(`${bcv.url} did not answer within ${TIMEOUT_MS} ms (3 attempts)`);
    expect(Date.now() - started).toBeLessThan(4_000);
  });

  it("answers 502 without retrying when the page has no #dolar block", async () => {
    bcv.setScenario("no-dolar");
    const { detail, attempts } = await expectFailure(502);
    expect(attempts).toBe(1);
    expect(detail).toContain("has no #dolar block with the dollar rate (1 attempt)");
  });

  it("answers 502 without retrying when the value is not a number", async () => {
    bcv.setScenario("garbage-value");
    const { detail, attempts } = await expectFailure(502);
    expect(attempts).toBe(1);
    expect(detail).toContain('shows "N/D" as the dollar rate, which is not a positive decimal number');
  });

  it("keeps what was stored before a failure", async () => {
    await fetchRate();
    const stored = readStoredRates(app);
    bcv.setScenario("error-500");
    bcv.setRate({ dollar: "999,00000000", date: today });
    expect((await fetchRate()).status).toBe(502);
    expect(readStoredRates(app)).toEqual(stored);
  });

  it("answers 502 naming the address when the site is unreachable", async () => {
    // The stand-in stops listening: its port refuses connections, as a site that is down does. It listens on
    // the same port again afterwards, for whatever test comes next.
    const port = Number(new URL(bcv.url).port);
    await bcv.stop();
    try {
      const response = await fetchRate();
      expect(response.status).toBe(502);
      expect(response.headers.get("content-type")).toBe("application/problem+json");
      const problem = await response.json();
      expect(problem.detail).toMatch(
        new RegExp(
          `could not reach http://127\\.0\\.0\\.1:${port}/: .*ECONNREFUSED.* \\(3 attempts\\)\\. Nothing was stored\\.$`,
        ),
      );
      expect(readStoredRates(app)).toEqual([]);
    } finally {
      bcv = await startBcvServer({ slowMs: 5_000, port });
    }
  });
});
