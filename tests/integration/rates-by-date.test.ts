import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AppServer, sharedAppServer } from "../support/app-server";
import { expectConditionalGet, seedRates } from "../support/rates";

let app: AppServer;
beforeAll(async () => {
  app = await sharedAppServer();
  seedRates(app, [
    { date: "2026-11-18", dollar: "231.98765432" },
    { date: "2026-11-20", dollar: "233.10000000" },
    { date: "2026-11-23", dollar: "236.45870000" },
  ]);
});
afterAll(() => app?.stop());

describe("GET /rates/{date}", () => {
  it("answers the rate of exactly that date", async () => {
    const response = await app.fetch("/rates/2026-11-20");
    expect(response.status).toBe(200);
    // Older than the newest value date: not the rate in force today.
    const about = { in_force: false, published_at: expect.any(String) };
    expect(await response.json()).toEqual({ dollar: 233.1, date: "2026-11-20", ...about });
    expect(await (await app.fetch("/rates/2026-11-18")).json()).toEqual({
      dollar: 231.98765432,
      date: "2026-11-18",
      ...about,
    });
  });

  it("answers 404 naming the nearest earlier date that has a rate", async () => {
    const response = await app.fetch("/rates/2026-11-22");
    expect(response.status).toBe(404);
    expect(response.headers.get("content-type")).toBe("application/problem+json");
    const problem = await response.json();
    expect(problem).toMatchObject({ title: "Not Found", status: 404 });
    expect(problem.detail).toBe(
      "No rate is stored for 2026-11-22; the nearest earlier date with a rate is 2026-11-20.",
    );

    const later = await (await app.fetch("/rates/2027-01-01")).json();
    expect(later.detail).toContain("nearest earlier date with a rate is 2026-11-23");
  });

  it("answers 404 saying so when no earlier date has a rate", async () => {
    const response = await app.fetch("/rates/2026-11-17");
    expect(response.status).toBe(404);
    expect((await response.json()).detail).toBe("No rate is stored for 2026-11-17 or any earlier date.");
  });

  it("accepts a leap day as a date", async () => {
    expect((await app.fetch("/rates/2024-02-29")).status).toBe(404);
  });

  it.each(["2026-02-30", "2026-13-01", "abc", "2026-02-29", "2026-11-5", "20261123", "2026-11-23T00:00:00Z", "%20"])(
    "answers 400 for the impossible or malformed date %j",
    async (date) => {
      const response = await app.fetch(`/rates/${date}`);
      expect(response.status).toBe(400);
      expect(response.headers.get("content-type")).toBe("application/problem+json");
      const problem = await response.json();
      expect(problem).toMatchObject({ title: "Bad Request", status: 400 });
      expect(problem.errors).toEqual([{ field: "path.date", message: expect.stringContaining("YYYY-MM-DD") }]);
      expect(problem.detail).toContain("path.date");
    },
  );

  it.each(["%", "%E0%A4%A", "2026-11-2%"])("answers 400, not 500, for the undecodable path /rates/%s", async (date) => {
    const response = await app.fetch(`/rates/${date}`);
    expect(response.status).toBe(400);
    expect(response.headers.get("content-type")).toBe("application/problem+json");
    expect((await response.json()).detail).toMatch(/not valid percent-encoding/);
  });

  it("sends ETag and Cache-Control, and 304 for a matching If-None-Match", async () => {
    const etag = await expectConditionalGet(app, "/rates/2026-11-23");
    const otherDate = await app.fetch("/rates/2026-11-20", { headers: { "If-None-Match": etag } });
    expect(otherDate.status).toBe(200);
  });
});
