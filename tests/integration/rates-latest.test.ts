import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AppServer, sharedAppServer } from "../support/app-server";
import { deleteAllRates, expectConditionalGet, seedRates } from "../support/rates";

let app: AppServer;
beforeAll(async () => {
  app = await sharedAppServer();
});
afterAll(() => app?.stop());

describe("GET /rates/", () => {
  it("answers 404 as a problem when no rate is stored", async () => {
    deleteAllRates(app);
    const response = await app.fetch("/rates/");
    expect(response.status).toBe(404);
    expect(response.headers.get("content-type")).toBe("application/problem+json");
    const problem = await response.json();
    expect(problem).toMatchObject({ type: "about:blank", title: "Not Found", status: 404 });
    expect(problem.detail).toMatch(/No rate is stored.*POST \/rates\//);
  });

  it("answers the rate of the newest date, whatever the order of storing", async () => {
    deleteAllRates(app);
    seedRates(app, [
      { date: "2026-11-20", dollar: "233.10000000" },
      { date: "2026-11-23", dollar: "236.45870001" },
      { date: "2025-12-31", dollar: "100.00000000" },
      { date: "2026-11-21", dollar: "234.00000000" },
    ]);
    const response = await app.fetch("/rates/");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    const text = await response.text();
    // The number carries every published decimal; the newest value date, before today, is the rate in force.
    expect(text).toMatch(
      /^\{"dollar":236\.45870001,"date":"2026-11-23","in_force":true,"published_at":"\d{4}-\d{2}-\d{2}T[\d:.]+Z"\}$/,
    );
  });

  it("is served at /rates too, without a redirect", async () => {
    deleteAllRates(app);
    seedRates(app, [{ date: "2026-11-23", dollar: "236.45870000" }]);
    const response = await app.fetch("/rates", { redirect: "manual" });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      dollar: 236.4587,
      date: "2026-11-23",
      in_force: true,
      published_at: expect.any(String),
    });
  });

  it("sends ETag and Cache-Control, and 304 while the newest rate is unchanged", async () => {
    deleteAllRates(app);
    seedRates(app, [{ date: "2026-11-23", dollar: "236.45870000" }]);
    const etag = await expectConditionalGet(app, "/rates/");
    expect(await expectConditionalGet(app, "/rates")).toBe(etag);

    seedRates(app, [{ date: "2026-11-24", dollar: "237.00000000" }]);
    const afterNewDate = await app.fetch("/rates/", { headers: { "If-None-Match": etag } });
    expect(afterNewDate.status).toBe(200);
    expect(afterNewDate.headers.get("etag")).not.toBe(etag);
    expect(await afterNewDate.json()).toMatchObject({ dollar: 237, date: "2026-11-24", in_force: true });
  });

  it("changes the ETag when the newest date's value is refreshed", async () => {
    deleteAllRates(app);
    seedRates(app, [{ date: "2026-11-23", dollar: "236.45870000" }]);
    const etag = (await app.fetch("/rates/")).headers.get("etag")!;
    seedRates(app, [{ date: "2026-11-23", dollar: "236.45870009" }]);
    const refreshed = await app.fetch("/rates/", { headers: { "If-None-Match": etag } });
    expect(refreshed.status).toBe(200);
    expect((await refreshed.json()).dollar).toBe(236.45870009);
  });
});
