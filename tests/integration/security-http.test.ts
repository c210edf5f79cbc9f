import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BuildsApp, fixtureConfig, makeBuildsFixture, startBuildsApp, tearDownBuilds } from "../support/builds";
import { signInWithCookie } from "../support/sessions";
import { registerAndGetToken } from "../support/users";

// CSRF through the session cookie and text/plain parsed as JSON refused; security headers; an oversized body
// answered briefly, not with an error reply many times its size; path traversal and injection refused.

let builds: BuildsApp;
let cookie: string;
let foreignOrigin: string;
beforeAll(async () => {
  // The tests' requests come from 127.0.0.1, a trusted proxy; from 127.0.0.2 they come from a stranger.
  builds = await startBuildsApp(
    makeBuildsFixture((fixture) => fixtureConfig(fixture)),
    { TRUSTED_PROXIES: "127.0.0.1" },
  );
  const user = await registerAndGetToken(builds.app);
  cookie = (await signInWithCookie(builds.app, user.email, user.password)).sessionCookie;
  // A build preview: the same host, another port.
  const port = Number(new URL(builds.app.baseUrl).port);
  foreignOrigin = `http://127.0.0.1:${port === 65535 ? port - 1 : port + 1}`;
});
afterAll(() => tearDownBuilds(builds));

// Passes every check up to the body's rules, then fails one (400): proof the request got through, no build made.
const unknownField = JSON.stringify({ repositories: [{ repository: "demo" }], modules: ["base_mod"], color: "red" });
const post = (pathname: string, headers: Record<string, string>, body = unknownField) =>
  builds.app.fetch(pathname, { method: "POST", headers, body });

describe("CSRF: writes authenticated by the session cookie", () => {
  it("refuse a foreign Origin (another port of the same host) with a 403 problem", async () => {
    const response = await post("/builds", {
      Cookie: cookie,
      Origin: foreignOrigin,
      "Content-Type": "application/json",
    });
    expect(response.status).toBe(403);
    expect(response.headers.get("content-type")).toBe("application/problem+json");
    expect((await response.json()).detail).toMatch(/Cross-origin write refused/);
  });

  it("refuse what a no-cors text/plain fetch from a preview sends", async () => {
    const response = await post("/builds", {
      Cookie: cookie,
      Origin: foreignOrigin,
      "Content-Type": "text/plain;charset=UTF-8",
    });
    expect(response.status).toBe(403);
  });

  it("refuse Sec-Fetch-Site same-site and cross-site, on every kind of write", async () => {
    for (const site of ["same-site", "cross-site"]) {
      const headers = { Cookie: cookie, "Sec-Fetch-Site": site, "Content-Type": "application/json" };
      expect((await post("/builds", headers)).status).toBe(403);
      expect((await builds.app.fetch("/rates/", { method: "POST", headers })).status).toBe(403);
      expect((await builds.app.fetch("/builds/0123456789abcdef", { method: "DELETE", headers })).status).toBe(403);
      expect((await builds.app.fetch("/builds/0123456789abcdef/cancel", { method: "POST", headers })).status).toBe(403);
      expect((await builds.app.fetch("/users/token", { method: "DELETE", headers })).status).toBe(403);
    }
  });

  it("accept the dashboard's own origin", async () => {
    const sameOrigin = await post("/builds", {
      Cookie: cookie,
      Origin: builds.app.baseUrl,
      "Content-Type": "application/json",
    });
    expect(sameOrigin.status).toBe(400);
    const fetchMetadata = await post("/builds", {
      Cookie: cookie,
      "Sec-Fetch-Site": "same-origin",
      "Content-Type": "application/json",
    });
    expect(fetchMetadata.status).toBe(400);
  });

  it("bearer-authenticated writes from other origins stay allowed", async () => {
    const response = await post("/builds", {
      ...builds.authorization,
      Origin: foreignOrigin,
      "Content-Type": "application/json",
    });
    expect(response.status).toBe(400);
  });
});

describe("JSON bodies must say they are JSON (415)", () => {
  it("answers 415 for text/plain or no Content-Type, even for valid JSON", async () => {
    const variants: Record<string, string>[] = [
      { "Content-Type": "text/plain" },
      { "Content-Type": "application/x-www-form-urlencoded" },
      {},
    ];
    for (const headers of variants) {
      const response = await post("/builds", { ...builds.authorization, ...headers });
      expect(response.status).toBe(415);
      expect((await response.json()).detail).toMatch(/Content-Type: application\/json/);
    }
    const register = await post(
      "/users/",
      { "Content-Type": "text/plain" },
      JSON.stringify({ email: "plain@example.com", password: "long enough" }),
    );
    expect(register.status).toBe(415);
  });
});

describe("bounded bodies and error replies", () => {
  const manyUnknownFields = (count: number) => {
    const body: Record<string, unknown> = { repositories: [{ repository: "demo" }], modules: ["base_mod"] };
    for (let index = 0; index < count; index++) body[`unknown_field_${index}_${"x".repeat(40)}`] = index;
    return JSON.stringify(body);
  };

  it("an 8 MB body of unknown fields gets a short 413, whether it declares its length or not", async () => {
    const body = manyUnknownFields(150_000);
    expect(Buffer.byteLength(body)).toBeGreaterThan(8_000_000);
    const declared = await post("/builds", { ...builds.authorization, "Content-Type": "application/json" }, body);
    expect(declared.status).toBe(413);
    expect((await declared.text()).length).toBeLessThan(2000);

    const bytes = new TextEncoder().encode(body);
    const stream = new ReadableStream({
      start(controller) {
        for (let offset = 0; offset < bytes.length; offset += 65536)
          controller.enqueue(bytes.subarray(offset, offset + 65536));
        controller.close();
      },
    });
    const chunked = await builds.app.fetch("/builds", {
      method: "POST",
      headers: { ...builds.authorization, "Content-Type": "application/json" },
      body: stream,
      duplex: "half",
    } as RequestInit);
    expect(chunked.status).toBe(413);
  });

  it("a body within the limit but full of unknown fields lists 20 of them in a reply of a few KB", async () => {
    const body = manyUnknownFields(3000);
    const response = await post("/builds", { ...builds.authorization, "Content-Type": "application/json" }, body);
    expect(response.status).toBe(400);
    const text = await response.text();
    expect(text.length).toBeLessThan(8000);
    const problem = JSON.parse(text);
    expect(problem.errors).toHaveLength(20);
    expect(problem.detail).toMatch(/3000 field errors, the first 20 listed/);
  });

  it("a field name of 100 KB is shortened in the reply", async () => {
    const body = JSON.stringify({
      repositories: [{ repository: "demo" }],
      modules: ["base_mod"],
      ["k".repeat(100_000)]: 1,
    });
    const response = await post("/builds", { ...builds.authorization, "Content-Type": "application/json" }, body);
    expect(response.status).toBe(400);
    expect((await response.text()).length).toBeLessThan(3000);
  });
});

describe("security headers", () => {
  it("pages carry a nonce CSP that every inline script honours, no framing, nosniff and a Referrer-Policy", async () => {
    // The builds console is a page only for a browser's navigation: the same address answers API clients JSON.
    const navigation = { Accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8" };
    for (const pathname of ["/", "/docs", "/builds", "/developers", "/prices"]) {
      const response = await builds.app.fetch(pathname, { headers: navigation });
      expect(response.status).toBe(200);
      const csp = response.headers.get("content-security-policy") ?? "";
      expect(csp).toMatch(/frame-ancestors 'none'/);
      expect(csp).toMatch(/object-src 'none'/);
      const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
      expect(nonce).toBeTruthy();
      expect(csp).not.toMatch(/script-src[^;]*'unsafe-inline'/);
      expect(csp, pathname).not.toContain("default-src 'none'");
      expect(response.headers.get("x-frame-options")).toBe("DENY");
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
      expect(response.headers.get("referrer-policy")).toBe("same-origin");
      const html = await response.text();
      const inlineScripts = [...html.matchAll(/<script(?![^>]*\bsrc=)([^>]*)>/g)].map((match) => match[1]);
      expect(inlineScripts.length).toBeGreaterThan(0);
      for (const attributes of inlineScripts) expect(attributes).toContain(`nonce="${nonce}"`);
    }
    const second = (await builds.app.fetch("/")).headers.get("content-security-policy");
    expect(second).not.toBe((await builds.app.fetch("/")).headers.get("content-security-policy"));
  });

  it("API replies carry nosniff, no-framing and a policy that allows nothing, once each, without the proxy", async () => {
    const requests: [string, RequestInit?][] = [
      ["/builds"],
      ["/builds/0000000000000000"],
      ["/builds/0000000000000000/no-such-thing"],
      ["/rates/"],
      ["/rates/history"],
      ["/rates/", { method: "POST" }],
      [
        "/rates/",
        { method: "OPTIONS", headers: { Origin: "https://example.com", "Access-Control-Request-Method": "GET" } },
      ],
      ["/users/me"],
      ["/app-config"],
      ["/openapi.json"],
      ["/currencies"],
    ];
    for (const [pathname, init] of requests) {
      const response = await builds.app.fetch(pathname, init);
      const where = `${init?.method ?? "GET"} ${pathname}`;
      expect(response.headers.get("x-content-type-options"), where).toBe("nosniff");
      expect(response.headers.get("x-frame-options"), where).toBe("DENY");
      expect(response.headers.get("referrer-policy"), where).toBe("same-origin");
      expect(response.headers.get("content-security-policy"), where).toBe("default-src 'none'; frame-ancestors 'none'");
    }
  });
});

describe("Strict-Transport-Security", () => {
  /** A GET from a given loopback address, with headers: its HSTS header. */
  function hstsOf(pathname: string, from: string, headers: Record<string, string>): Promise<string | undefined> {
    return new Promise((resolve, reject) => {
      const request = http.request(
        new URL(pathname, builds.app.baseUrl),
        { localAddress: from, headers },
        (response) => {
          response.resume();
          response.on("end", () => resolve(response.headers["strict-transport-security"] as string | undefined));
        },
      );
      request.on("error", reject);
      request.end();
    });
  }

  it("is sent, on pages and API replies, when a trusted proxy says the request came over HTTPS", async () => {
    for (const pathname of ["/", "/rates/", "/builds", "/builds/0000000000000000"]) {
      expect(await hstsOf(pathname, "127.0.0.1", { "X-Forwarded-Proto": "https" }), pathname).toBe("max-age=31536000");
    }
  });

  it("is not sent over plain HTTP, nor when anyone but a trusted proxy claims HTTPS", async () => {
    for (const pathname of ["/", "/rates/"]) {
      expect(await hstsOf(pathname, "127.0.0.1", {}), pathname).toBeUndefined();
      expect(await hstsOf(pathname, "127.0.0.1", { "X-Forwarded-Proto": "http" }), pathname).toBeUndefined();
      expect(await hstsOf(pathname, "127.0.0.2", { "X-Forwarded-Proto": "https" }), pathname).toBeUndefined();
    }
  });
});

/** A raw request (fetch refuses TRACE): status, headers and body. Node itself answers 400 to names it does not know (TRACK, FOO). */
function rawRequest(
  method: string,
  pathname: string,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(new URL(pathname, builds.app.baseUrl), { method }, (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk) => (body += chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
    });
    request.on("error", reject);
    request.end();
  });
}

// TRACE (Next.js cannot make a fetch Request of it) and WebDAV methods are answered 405 before they reach a page
// or a route handler.
describe("methods the server does not serve", () => {
  const paths = [
    "/",
    "/rates/",
    "/builds",
    "/hooks/demo",
    "/api/auth/session",
    "/docs",
    "/icon.svg",
    "/_next/static/chunks/x.js",
    "/no/such/page",
  ];

  it.each(["TRACE", "PROPFIND", "MKCOL", "LOCK"])(
    "%s answers 405 with Allow and a problem on every kind of path, never a 500",
    async (method) => {
      for (const pathname of paths) {
        const response = await rawRequest(method, pathname);
        expect({ pathname, status: response.status }).toEqual({ pathname, status: 405 });
        expect(response.headers["content-type"]).toBe("application/problem+json");
        expect(response.headers.allow).toBe("GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS");
        expect(response.headers["x-content-type-options"]).toBe("nosniff");
        const problem = JSON.parse(response.body);
        expect(problem).toMatchObject({ status: 405, title: "Method Not Allowed" });
        expect(problem.detail).toContain(`${method} is not a method this server serves`);
        expect(response.body).not.toMatch(/\n\s+at |TypeError/);
      }
      expect(builds.app.output()).not.toContain(`'${method}' HTTP method is unsupported`);
    },
  );

  it("the methods it serves still reach the app", async () => {
    expect((await rawRequest("GET", "/rates/")).status).not.toBe(405);
    expect((await rawRequest("OPTIONS", "/rates/")).headers.allow).toContain("GET");
  });
});

describe("what held (regression cases)", () => {
  it("log reads cannot leave the build's logs folder", async () => {
    for (const query of [
      "?stage=../../../../etc/passwd",
      "?stage=%2e%2e%2f%2e%2e%2fetc%2fpasswd",
      "?stage=install/../../x",
    ]) {
      const response = await builds.get(`/builds/0123456789abcdef/logs${query}`);
      expect([404, 400]).toContain(response.status);
      expect(await response.text()).not.toMatch(/root:/);
    }
    for (const id of ["..%2F..%2F..%2Fetc%2Fpasswd", "%2e%2e", "..%5C..%5Cwindows"]) {
      const response = await builds.get(`/builds/${id}/logs`);
      expect(response.status).toBeGreaterThanOrEqual(400);
      expect(response.status).toBeLessThan(500);
      expect(await response.text()).not.toMatch(/root:/);
    }
  });

  it("refs and modules never reach a shell", async () => {
    const marker = path.join(os.tmpdir(), `pwned-${process.pid}-${Date.now()}`);
    const payloads = [
      { repositories: [{ repository: "demo", ref: `$(touch ${marker})` }], modules: ["base_mod"] },
      { repositories: [{ repository: "demo", ref: `main;touch ${marker}` }], modules: ["base_mod"] },
      { repositories: [{ repository: "demo", ref: `--output=${marker}` }], modules: ["base_mod"] },
      { repositories: [{ repository: "demo" }], modules: [`base_mod;touch ${marker}`] },
      { repositories: [{ repository: "demo" }], modules: ["`touch x`"] },
      { repositories: [{ repository: `demo;touch ${marker}` }], modules: ["base_mod"] },
    ];
    for (const payload of payloads) {
      const response = await builds.post(payload);
      expect([400]).toContain(response.status);
    }
    expect(fs.existsSync(marker)).toBe(false);
  });
});
