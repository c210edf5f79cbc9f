import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AppServer, SHARED_SERVER_ENV, type SharedBank, sharedAppServer, sharedBank } from "../support/app-server";
import { queryDatabase } from "../support/database";
import { rateFields, seedRates, shiftDate, todayAtOffset } from "../support/rates";
import { registerAndGetToken } from "../support/users";

/**
 * The rate reads are served from a cache of serialised bodies (lib/rates/read-cache.ts). These tests hold it
 * to "correctness first": a read after a write sees the write, whether the write came through the API (same
 * process) or straight into the database file (another connection: an import, a script).
 */
// GET /metrics tells what the cache holds.
const { METRICS_TOKEN } = SHARED_SERVER_ENV;
let bcv: SharedBank;
let app: AppServer;
let authorization: Record<string, string>;
const today = todayAtOffset(-4);
const yesterday = shiftDate(today, -1);

beforeAll(async () => {
  app = await sharedAppServer();
  bcv = sharedBank();
  ({ authorization } = await registerAndGetToken(app));
});
afterAll(() => app?.stop());

const readJson = async (path: string) => {
  const response = await app.fetch(path);
  expect(response.status, path).toBe(200);
  return { etag: response.headers.get("etag"), body: rateFields(await response.json()) };
};

describe("rate reads after writes", () => {
  it("see a rate stored by POST /rates/ at once: latest, by date, and the default history", async () => {
    seedRates(app, [{ date: yesterday, dollar: "100.00000000" }]);
    const before = await readJson("/rates/");
    expect(before.body).toEqual({ dollar: 100, date: yesterday });
    expect((await app.fetch(`/rates/${today}`)).status).toBe(404);
    const historyBefore = await readJson("/rates/history");
    expect(historyBefore.body.rates).toEqual([{ dollar: 100, date: yesterday }]);

    await bcv.setRate({ dollar: "101,50000000", date: today });
    const stored = await app.fetch("/rates/", { method: "POST", headers: authorization });
    expect(stored.status).toBe(201);

    const after = await readJson("/rates/");
    expect(after.body).toEqual({ dollar: 101.5, date: today });
    expect(after.etag).not.toBe(before.etag);
    expect((await readJson(`/rates/${today}`)).body).toEqual({ dollar: 101.5, date: today });
    expect((await readJson("/rates/history")).body.rates).toEqual([
      { dollar: 101.5, date: today },
      { dollar: 100, date: yesterday },
    ]);
    // The old ETag no longer answers 304.
    const revalidated = await app.fetch("/rates/", { headers: { "If-None-Match": before.etag! } });
    expect(revalidated.status).toBe(200);
  });

  it("see a write made by another connection to the database file at once", async () => {
    const cached = await readJson(`/rates/${yesterday}`);
    expect((await readJson(`/rates/${yesterday}`)).etag).toBe(cached.etag);
    seedRates(app, [{ date: yesterday, dollar: "99.25000000" }]);
    expect((await readJson(`/rates/${yesterday}`)).body).toEqual({ dollar: 99.25, date: yesterday });
  });

  it("stay cached through writes to other tables (a registration and sign-in, a signed-out session), not through a rate's", async () => {
    const stats = async () => {
      const metrics = await (
        await app.fetch("/metrics", { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } })
      ).text();
      const value = (name: string) => Number(new RegExp(`^${name} (\\d+)$`, "m").exec(metrics)?.[1]);
      return { entries: value("rates_read_cache_entries"), epoch: value("rates_read_cache_invalidations") };
    };
    seedRates(app, [{ date: yesterday, dollar: "101.00000000" }]);
    await readJson(`/rates/${yesterday}`);
    const before = await stats();
    expect(before.entries).toBeGreaterThan(0);
    await registerAndGetToken(app);
    queryDatabase(
      app,
      {
        sqlite: `INSERT INTO "RevokedSession" ("sid", "expiresAt") VALUES (?, ?)`,
        postgresql: `INSERT INTO "RevokedSession" ("sid", "expiresAt") VALUES (:'params'::json ->> 0, CAST(:'params'::json ->> 1 AS TIMESTAMP(3)))`,
      },
      ["not-a-rate", new Date().toISOString()],
    );
    expect((await readJson(`/rates/${yesterday}`)).body).toEqual({ dollar: 101, date: yesterday });
    expect(await stats()).toMatchObject({ epoch: before.epoch, entries: before.entries });
    seedRates(app, [{ date: yesterday, dollar: "102.00000000" }]);
    expect((await readJson(`/rates/${yesterday}`)).body).toEqual({ dollar: 102, date: yesterday });
    expect((await stats()).epoch).toBeGreaterThan(before.epoch);
  });

  it("answer 304 from the cache for the ETag it gave, and the same whole body to every reader, concurrent or not", async () => {
    const start = shiftDate(today, -3660);
    seedRates(
      app,
      Array.from({ length: 3000 }, (_, day) => ({ date: shiftDate(start, day), dollar: (10 + day / 100).toFixed(8) })),
    );
    const path = `/rates/history?start_date=${start}&end_date=${today}`;
    const answers = await Promise.all(Array.from({ length: 30 }, () => app.fetch(path).then((r) => r.text())));
    expect(new Set(answers).size).toBe(1);
    expect(JSON.parse(answers[0]).rates).toHaveLength(3002);
    // Cache hits, one after another, get the whole cached body: it is sent without a copy
    // (lib/http/cache.ts), and sending it must leave it intact for the next one.
    for (let hit = 0; hit < 3; hit++) {
      expect(await (await app.fetch(path)).text()).toBe(answers[0]);
    }
    const { etag } = await readJson(path);
    const notModified = await app.fetch(path, { headers: { "If-None-Match": etag! } });
    expect(notModified.status).toBe(304);
    expect(await notModified.text()).toBe("");
  });

  it("carry the security headers that the proxy gives every other response", async () => {
    for (const path of ["/rates/", `/rates/${yesterday}`, "/rates/history"]) {
      const response = await app.fetch(path);
      expect(response.headers.get("x-content-type-options"), path).toBe("nosniff");
      expect(response.headers.get("x-frame-options"), path).toBe("DENY");
      expect(response.headers.get("content-security-policy"), path).toContain("frame-ancestors 'none'");
    }
    const page = await app.fetch("/");
    expect(page.headers.get("content-security-policy")).toMatch(/script-src 'self' 'nonce-/);
  });

  it("never cache a problem: a date without a rate answers 404 until one is stored", async () => {
    const later = shiftDate(today, -2);
    expect((await app.fetch(`/rates/${later}`)).status).toBe(404);
    seedRates(app, [{ date: later, dollar: "98.00000000" }]);
    expect((await readJson(`/rates/${later}`)).body).toEqual({ dollar: 98, date: later });
  });
});
