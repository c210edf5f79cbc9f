import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AppServer, sharedAppServer } from "../support/app-server";
import { deleteAllRates, expectConditionalGet, seedRates } from "../support/rates";

/**
 * The rate for a shop's own site: GET /rates/badge.svg (an image) and GET /embed (a card for an iframe). Both
 * show the newest stored rate of a currency with its value date, in Spanish or English, name the central bank
 * and its terms, are cached like the other reads, and only /embed may be framed by another site.
 */
let app: AppServer;
beforeAll(async () => {
  app = await sharedAppServer();
  seedRates(app, [
    { date: "2025-10-13", dollar: "195.2491", others: { EUR: "226.03597808" } },
    { date: "2025-10-14", dollar: "197.2456" },
    { date: "2025-10-15", dollar: "1234.5" },
  ]);
});
afterAll(() => app?.stop());

const TERMS = "https://www.bcv.org.ve/terminos-condiciones";

describe("GET /rates/badge.svg", () => {
  it("is an SVG of the newest stored rate and its value date, in Spanish by default", async () => {
    const response = await app.fetch("/rates/badge.svg");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("image/svg+xml; charset=utf-8");
    const svg = await response.text();
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg" width="\d+" height="20" role="img"/);
    expect(svg).toContain(">BCV USD</text>");
    expect(svg).toContain(">Bs. 1.234,5000 · 15 oct 2025</text>");
    expect(svg).toContain(
      "<title>Tasa del BCV del dólar estadounidense: Bs. 1.234,5000, fecha valor 15 oct 2025. Fuente: Banco Central de Venezuela.</title>",
    );
    expect(response.headers.get("link")).toBe(
      '<https://www.bcv.org.ve/>; rel="via"; title="Banco Central de Venezuela"',
    );
  });

  it("writes the numbers as English does with lang=en, and shows another currency's newest rate", async () => {
    const svg = await (await app.fetch("/rates/badge.svg?currency=usd&lang=en")).text();
    expect(svg).toContain(">Bs. 1,234.5000 · Oct 15, 2025</text>");
    // The euro's newest rate is older than the dollar's: its own date is shown, every published decimal.
    const euro = await (await app.fetch("/rates/badge.svg?currency=EUR&lang=es")).text();
    expect(euro).toContain(">BCV EUR</text>");
    expect(euro).toContain(">Bs. 226,0360 · 13 oct 2025</text>");
    expect(euro).toContain("<title>Tasa del BCV del euro: Bs. 226,0360, fecha valor");
  });

  it("is cached like the other reads, and follows a newly stored rate", async () => {
    await expectConditionalGet(app, "/rates/badge.svg?currency=USD&lang=es");
    seedRates(app, [{ date: "2025-10-16", dollar: "240.1" }]);
    // The seeding moved the rates' version: the cache forgets the old badge.
    expect(await (await app.fetch("/rates/badge.svg?currency=USD&lang=es")).text()).toContain(
      ">Bs. 240,1000 · 16 oct 2025</text>",
    );
  });

  it("keeps the API's frame protections", async () => {
    const response = await app.fetch("/rates/badge.svg");
    expect(response.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(response.headers.get("x-frame-options")).toBe("DENY");
  });

  it("answers a problem naming the parameter for a currency or language it cannot show", async () => {
    for (const [query, status, field] of [
      ["currency=XYZ", 400, "query.currency"],
      ["currency=dollar", 400, "query.currency"],
      ["lang=fr", 400, "query.lang"],
    ] as const) {
      const response = await app.fetch(`/rates/badge.svg?${query}`);
      expect(response.status, query).toBe(status);
      expect(response.headers.get("content-type")).toBe("application/problem+json");
      const problem = await response.json();
      expect(
        problem.errors.map((error: { field: string }) => error.field),
        query,
      ).toEqual([field]);
    }
    // A currency the bank publishes but none of whose rates is stored.
    const response = await app.fetch("/rates/badge.svg?currency=CNY");
    expect(response.status).toBe(404);
    expect((await response.json()).detail).toContain("No rate is stored for CNY");
  });
});

describe("GET /embed", () => {
  it("is a page of the newest rate, its value date, the source and the bank's terms, linked", async () => {
    const response = await app.fetch("/embed?currency=USD&lang=es");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const html = await response.text();
    expect(html).toContain('<html lang="es">');
    expect(html).toContain("<title>Tasa BCV: dólar estadounidense</title>");
    expect(html).toContain('<h1 class="per">Bolívares por dólar estadounidense</h1>');
    expect(html).toContain('<p class="rate">Bs. 240,1000</p>');
    expect(html).toContain('<p class="date">Fecha valor: 16 oct 2025</p>');
    expect(html).toContain(
      'Fuente: <a href="https://www.bcv.org.ve/" target="_blank" rel="noopener noreferrer">Banco Central de Venezuela</a>',
    );
    expect(html).toContain(`<a href="${TERMS}" target="_blank" rel="noopener noreferrer">términos</a>`);
    // Nothing runs in it: no script at all, and the policy allows none.
    expect(html).not.toContain("<script");

    const english = await (await app.fetch("/embed?currency=EUR&lang=en")).text();
    expect(english).toContain('<html lang="en">');
    expect(english).toContain('<p class="rate">Bs. 226.0360</p>');
    expect(english).toContain('<p class="date">Value date: Oct 13, 2025</p>');
    expect(english).toContain(`<a href="${TERMS}" target="_blank" rel="noopener noreferrer">terms</a>`);
  });

  it("may be framed by any site, while the dashboard and the API may not", async () => {
    const embed = await app.fetch("/embed");
    const policy = embed.headers.get("content-security-policy")!;
    expect(policy.split("; ")).toContain("frame-ancestors *");
    expect(policy.split("; ")).toContain("default-src 'none'");
    expect(embed.headers.get("x-frame-options")).toBeNull();
    expect(embed.headers.get("x-content-type-options")).toBe("nosniff");
    // Its problems too: this path does not pass through the proxy that gives the pages their headers.
    const problem = await app.fetch("/embed?lang=fr");
    expect(problem.status).toBe(400);
    expect(problem.headers.get("content-security-policy")).toContain("frame-ancestors *");

    for (const path of ["/", "/docs", "/rates/"]) {
      const response = await app.fetch(path);
      expect(response.headers.get("content-security-policy"), path).toContain("frame-ancestors 'none'");
      expect(response.headers.get("x-frame-options"), path).toBe("DENY");
    }
  });

  it("is cached like the other reads", async () => {
    await expectConditionalGet(app, "/embed?currency=EUR&lang=en");
  });

  it("says so when no rate is stored", async () => {
    deleteAllRates(app);
    const response = await app.fetch("/embed?currency=USD");
    expect(response.status).toBe(404);
    expect((await response.json()).detail).toContain("No rate is stored for USD");
  });
});
