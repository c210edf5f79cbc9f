import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commandEnvironment, freePort, freePortBelowEphemeral, sessionSecret } from "../support/app-server";
import {
  type BuildJson,
  type BuildsApp,
  fixtureUids,
  makeBuildsFixture,
  startBuildsApp,
  tearDownBuilds,
} from "../support/builds";
import { type Gateway, ODOO_LIKE_PREVIEW, type RawResponse, requestThrough, startGateway } from "../support/gateway";
import { signInWithCookie, signOutWithCookie } from "../support/sessions";
import { registerAndGetToken } from "../support/users";

/**
 * Who the gateway lets in (`npm run gateway`, the real nginx, in front of the built app): a repository whose
 * previews are for signed-in users (`preview_access: users`), one whose previews are public, and what a preview
 * receives once a visitor is in. Requests go to 127.0.0.1 with the preview's name in Host, as a browser that
 * resolved the name sends them; the stand-in Odoo preview answers with the headers it received.
 */
const DOMAIN = "preview.localhost";
const BYPASS = `bypass-${crypto.randomUUID()}`;
const BROWSER = { Accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8" };
let builds: BuildsApp;
let gateway: Gateway;
let port: number;
let dashboard: string;
let privateBuild: BuildJson;
let publicBuild: BuildJson;
let privateHost: string;
let publicHost: string;

beforeAll(async () => {
  port = await freePortBelowEphemeral();
  const appPort = await freePort();
  dashboard = `http://127.0.0.1:${appPort}`;
  const fixture = makeBuildsFixture(
    (f) => `
builds_root: ${f.buildsRoot}
max_concurrent_builds: 2
ports: { start: ${f.ports.start}, end: ${f.ports.end} }
reaper_interval_seconds: 0.5
gateway: { domain: ${DOMAIN}, port: ${port} }
runtime:
  driver: process
  run_as_uids: ${JSON.stringify(fixtureUids(f.ports))}
  start: ${ODOO_LIKE_PREVIEW}
  healthcheck: { path: /web/login, timeout_seconds: 30 }
repositories:
  - alias: secret
    url: ./repo
    modules_path: addons
    module_manifest: manifest.json
    preview_access: users
    preview_bypass_secret_env: ACCESS_TEST_BYPASS
  - alias: open
    url: ./repo
    modules_path: addons
    module_manifest: manifest.json
`,
  );
  const env = { ACCESS_TEST_BYPASS: BYPASS };
  builds = await startBuildsApp(fixture, { ...env, PORT: String(appPort), PUBLIC_URL: dashboard });
  gateway = await startGateway({
    port,
    appUrl: builds.app.baseUrl,
    env: { ...env, ...commandEnvironment(builds.app), BUILDS_CONFIG: fixture.configFile },
    dataDir: builds.app.dataDir,
  });
  const started: BuildJson[] = [];
  for (const repository of ["secret", "open"]) {
    const response = await builds.post({ repositories: [{ repository, ref: "main" }], modules: ["base_mod"] });
    expect(response.status).toBe(202);
    started.push((await response.json()) as BuildJson);
  }
  [privateBuild, publicBuild] = await Promise.all(
    started.map((build) => builds.waitForStatus(build.build_id, ["running"], 60_000)),
  );
  privateHost = `${privateBuild.build_id}.${DOMAIN}:${port}`;
  publicHost = `${publicBuild.build_id}.${DOMAIN}:${port}`;
}, 180_000);
afterAll(async () => {
  await gateway?.stop();
  await tearDownBuilds(builds);
});

const through = (host: string, path: string, headers: Record<string, string> = {}) =>
  requestThrough(port, { host, path, headers });
const seenBy = (response: RawResponse) =>
  JSON.parse(response.body) as { build_id: string; path: string; headers: Record<string, string> };
// nginx keeps each answer "1 s" counted in whole seconds of its clock: an answer lives for less than 2 s.
const GATEWAY_CACHE_MS = 2_100;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The gateway's cookie a response sets, as `name=value`, with its attributes. */
function gatewayCookieOf(response: RawResponse): { pair: string; attributes: string[] } {
  const line = (response.headers["set-cookie"] ?? []).find((cookie) => cookie.startsWith("preview-access="));
  if (!line) throw new Error(`no gateway cookie set (status ${response.status})`);
  const [pair, ...attributes] = line.split(";").map((part) => part.trim());
  return { pair, attributes };
}

/** A signed-in user's whole round trip: the dashboard's ticket, the gateway's admission; the gateway's cookie. */
async function admitSignedIn(cookie: string, to = "/") {
  const label = privateBuild.build_id;
  const ticket = await fetch(`${dashboard}/gateway/ticket?${new URLSearchParams({ name: label, to })}`, {
    headers: { ...BROWSER, Cookie: cookie },
    redirect: "manual",
  });
  expect(ticket.status).toBe(303);
  const admit = new URL(ticket.headers.get("location")!);
  expect(admit.host).toBe(privateHost);
  expect(admit.pathname).toBe("/__gateway/admit");
  const admitted = await through(privateHost, `${admit.pathname}${admit.search}`, BROWSER);
  expect(admitted.status).toBe(303);
  expect(admitted.headers.location).toBe(to);
  return { admitted, ticketUrl: admit, cookie: gatewayCookieOf(admitted) };
}

/** A ticket as the app signs one (lib/gateway/access.ts), with the app's secret: to forge an expired one. */
function signedTicket(label: string, grant: unknown[], expiresAt: number): string {
  const key = crypto.createHmac("sha256", sessionSecret(builds.app)).update("preview-gateway-pass").digest();
  const payload = Buffer.from(JSON.stringify({ h: label, g: grant, e: expiresAt })).toString("base64url");
  return `${payload}.${crypto.createHmac("sha256", key).update(`ticket\n${payload}`).digest("base64url")}`;
}

describe("a public preview (preview_access: public, the default)", () => {
  it("is served to anyone, as before", async () => {
    const response = await through(publicHost, "/anything?x=1", BROWSER);
    expect(response.status).toBe(200);
    expect(seenBy(response)).toMatchObject({ build_id: publicBuild.build_id, path: "/anything?x=1" });
  });
});

describe("a private preview (preview_access: users)", () => {
  it("sends an anonymous browser to sign in on the dashboard, and shows it nothing of the preview", async () => {
    const response = await through(privateHost, "/web/x?y=1", BROWSER);
    expect(response.status).toBe(303);
    const location = new URL(response.headers.location!);
    expect(`${location.origin}${location.pathname}`).toBe(`${dashboard}/gateway/ticket`);
    expect(Object.fromEntries(location.searchParams)).toEqual({ name: privateBuild.build_id, to: "/web/x?y=1" });
    expect(response.body).not.toContain("url_root");
  });

  it("answers a program 401, with a problem that says how to get in", async () => {
    const response = await through(privateHost, "/");
    expect(response.status).toBe(401);
    expect(response.headers["content-type"]).toContain("application/problem+json");
    expect(JSON.parse(response.body).detail).toContain("signed in to the dashboard");
  });

  it("GET /gateway/ticket sends a signed-out browser to the sign-in dialog, which comes back to it", async () => {
    const query = new URLSearchParams({ name: privateBuild.build_id, to: "/web" });
    const response = await fetch(`${dashboard}/gateway/ticket?${query}`, { headers: BROWSER, redirect: "manual" });
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe(
      `/?${new URLSearchParams({ "sign-in": `/gateway/ticket?${query}` })}`,
    );
  });

  it("GET /gateway/ticket refuses a name no preview has", async () => {
    const response = await fetch(`${dashboard}/gateway/ticket?name=a_b&to=/`, { redirect: "manual" });
    expect(response.status).toBe(400);
  });

  it("admits a signed-in user through a ticket; the preview receives no gateway cookie, ticket or dashboard cookie", async () => {
    const user = await registerAndGetToken(builds.app);
    const signedIn = await signInWithCookie(builds.app, user.email, user.password);
    const { cookie, ticketUrl } = await admitSignedIn(signedIn.cookie, "/anything?y=1");
    expect(cookie.attributes).toEqual(expect.arrayContaining(["Path=/", "HttpOnly", "SameSite=Lax"]));
    expect(cookie.attributes).not.toContain("Secure");
    expect(cookie.attributes.some((attribute) => /^domain=/i.test(attribute))).toBe(false);

    const response = await through(privateHost, "/anything?y=1", {
      ...BROWSER,
      Cookie: `session_id=abc; ${cookie.pair}; lang=es`,
    });
    expect(response.status).toBe(200);
    const seen = seenBy(response);
    expect(seen).toMatchObject({ build_id: privateBuild.build_id, path: "/anything?y=1" });
    // The preview's own cookies pass; the gateway's does not.
    expect(seen.headers.cookie).toBe("session_id=abc; lang=es");
    const everything = JSON.stringify(seen);
    for (const secret of [cookie.pair.split("=")[1], ticketUrl.searchParams.get("ticket")!, signedIn.sessionCookie])
      expect(everything).not.toContain(secret);
    expect(Object.keys(seen.headers).filter((name) => /gateway|bypass/.test(name))).toEqual([]);

    // The gateway's cookie alone in the header: the preview receives no Cookie at all.
    const alone = seenBy(await through(privateHost, "/", { Cookie: cookie.pair }));
    expect(alone.headers.cookie).toBeUndefined();
  });

  it("sends the browser back to / for a return path that leaves the preview's site (a TAB, a backslash, //)", async () => {
    const user = await registerAndGetToken(builds.app);
    const { cookie } = await signInWithCookie(builds.app, user.email, user.password);
    for (const to of ["/\t/evil.localhost:3899/pwned", "/\\evil.localhost/pwned", "//evil.localhost/", "/a\u0000b"]) {
      const ticket = await fetch(
        `${dashboard}/gateway/ticket?${new URLSearchParams({ name: privateBuild.build_id, to })}`,
        {
          headers: { ...BROWSER, Cookie: cookie },
          redirect: "manual",
        },
      );
      expect(ticket.status).toBe(303);
      const admit = new URL(ticket.headers.get("location")!);
      expect(admit.searchParams.get("to"), JSON.stringify(to)).toBe("/");
      // The admit judges the path again: a ticket's holder may write any `to` on its address.
      admit.searchParams.set("to", to);
      const admitted = await through(privateHost, `${admit.pathname}${admit.search}`, BROWSER);
      expect(admitted.status).toBe(303);
      expect(admitted.headers.location, JSON.stringify(to)).toBe("/");
    }
  });

  it("keeps an admitted visitor's answer to that visitor: an anonymous one right after is still refused", async () => {
    const user = await registerAndGetToken(builds.app);
    const { cookie } = await admitSignedIn((await signInWithCookie(builds.app, user.email, user.password)).cookie);
    for (let round = 0; round < 3; round++) {
      expect((await through(privateHost, "/", { Cookie: cookie.pair })).status).toBe(200);
      expect((await through(privateHost, "/")).status).toBe(401);
      expect((await through(privateHost, "/", { Cookie: "lang=es" })).status).toBe(401);
    }
  });

  it("refuses a forged, expired or another name's ticket", async () => {
    const user = await registerAndGetToken(builds.app);
    const signedIn = await signInWithCookie(builds.app, user.email, user.password);
    const { ticketUrl } = await admitSignedIn(signedIn.cookie);
    const ticket = ticketUrl.searchParams.get("ticket")!;
    const [payload, signature] = ticket.split(".");
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString()) as { g: unknown[] };
    const forgedPayload = Buffer.from(
      JSON.stringify({ h: publicBuild.build_id, g: claims.g, e: Date.now() / 1000 + 60 }),
    ).toString("base64url");
    // One bit of its first byte flipped: a fixed ending ("AA") is, once in 4096 tickets, the signature's own.
    const tampered = Buffer.from(signature, "base64url");
    tampered[0] ^= 1;
    const refused = [
      `${forgedPayload}.${signature}`,
      `${payload}.${tampered.toString("base64url")}`,
      signedTicket(privateBuild.build_id, claims.g, Math.floor(Date.now() / 1000) - 1),
      "",
    ];
    for (const bad of refused) {
      const response = await through(privateHost, `/__gateway/admit?ticket=${encodeURIComponent(bad)}&to=/`);
      expect(response.status, bad).toBe(403);
      expect(response.headers["set-cookie"]).toBeUndefined();
    }
    // A good ticket signed for the private name does not admit to another name either.
    const elsewhere = await through(publicHost, `/__gateway/admit?ticket=${encodeURIComponent(ticket)}&to=/`);
    expect(elsewhere.status).toBe(403);
    // The same signature with a later expiry is a forgery.
    const extended = signedTicket(privateBuild.build_id, claims.g, Math.floor(Date.now() / 1000) + 3600);
    const forged = `${extended.split(".")[0]}.${signature}`;
    expect((await through(privateHost, `/__gateway/admit?ticket=${encodeURIComponent(forged)}`)).status).toBe(403);
  });

  it("refuses a forged gateway cookie and clears it, and refuses the cookie sent twice", async () => {
    const forged = await through(privateHost, "/", { ...BROWSER, Cookie: "preview-access=abc.def" });
    expect(forged.status).toBe(303);
    expect(gatewayCookieOf(forged)).toMatchObject({
      pair: "preview-access=",
      attributes: expect.arrayContaining(["Max-Age=0"]),
    });

    const user = await registerAndGetToken(builds.app);
    const { cookie } = await admitSignedIn((await signInWithCookie(builds.app, user.email, user.password)).cookie);
    const twice = await through(privateHost, "/", { Cookie: `${cookie.pair}; a=1; ${cookie.pair}` });
    expect(twice.status).toBe(400);
    expect(twice.body).not.toContain("build_id");
  });

  it("closes to a user who signs out of the dashboard, within the gateway's cache time", async () => {
    const user = await registerAndGetToken(builds.app);
    const signedIn = await signInWithCookie(builds.app, user.email, user.password);
    const { cookie } = await admitSignedIn(signedIn.cookie);
    expect((await through(privateHost, "/", { Cookie: cookie.pair })).status).toBe(200);
    expect((await signOutWithCookie(builds.app, signedIn)).status).toBeLessThan(400);
    await sleep(GATEWAY_CACHE_MS);
    expect((await through(privateHost, "/", { Cookie: cookie.pair })).status).toBe(401);
  });

  it("opens to an automated test with the repository's bypass secret, which the preview never receives", async () => {
    const response = await through(privateHost, "/anything", { "X-Preview-Bypass": BYPASS });
    expect(response.status).toBe(200);
    const seen = seenBy(response);
    expect(seen.build_id).toBe(privateBuild.build_id);
    expect(JSON.stringify(seen)).not.toContain(BYPASS);
    expect(seen.headers["x-preview-bypass"]).toBeUndefined();
    // Not kept for others: the next anonymous request, and a wrong secret, are refused.
    expect((await through(privateHost, "/")).status).toBe(401);
    const wrong = await through(privateHost, "/", { "X-Preview-Bypass": `${BYPASS}x` });
    expect(wrong.status).toBe(401);
    expect(JSON.parse(wrong.body).detail).toContain("X-Preview-Bypass");
    // A public preview does not receive the header either.
    const open = seenBy(await through(publicHost, "/", { "X-Preview-Bypass": BYPASS }));
    expect(open.headers["x-preview-bypass"]).toBeUndefined();
  });
});

describe("POST /builds/{build_id}/share, GET /builds/{build_id}/shares, DELETE /builds/{build_id}/shares/{share_id}", () => {
  // Links that stay on the build (its own name); those that follow a branch: gateway-names.test.ts.
  const share = (buildId: string, body: Record<string, unknown> = {}, authorization = builds.authorization) =>
    builds.app.fetch(`/builds/${buildId}/share`, {
      method: "POST",
      headers: { ...authorization, "Content-Type": "application/json" },
      body: JSON.stringify({ scope: "build", ...body }),
    });

  it("takes no body at all: neither Content-Length nor Transfer-Encoding, or an empty chunked one", async () => {
    const { hostname, port: appPort } = new URL(builds.app.baseUrl);
    for (const framing of ["", "Transfer-Encoding: chunked\r\n"]) {
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = net.connect(Number(appPort), hostname, () =>
          socket.write(
            `POST /builds/${privateBuild.build_id}/share HTTP/1.1\r\nHost: ${hostname}:${appPort}\r\n` +
              `Authorization: ${builds.authorization.Authorization}\r\n${framing}Connection: close\r\n\r\n` +
              (framing ? "0\r\n\r\n" : ""),
          ),
        );
        let text = "";
        socket.setEncoding("utf8");
        socket.on("data", (chunk) => {
          text += chunk;
        });
        socket.on("end", () => resolve(text));
        socket.on("error", reject);
      });
      expect(answer.split("\r\n")[0], JSON.stringify(framing)).toBe("HTTP/1.1 201 Created");
      expect(answer).toMatch(/"url":"http:\/\/[^"]+\/__gateway\/share\//);
    }
    // A body that says nothing of its type is still refused: it is not JSON by declaration.
    const plain = await builds.app.fetch(`/builds/${privateBuild.build_id}/share`, {
      method: "POST",
      headers: { ...builds.authorization, "Content-Type": "text/plain" },
      body: '{"expires_in_seconds":60}',
    });
    expect(plain.status).toBe(415);
  });

  it("makes a link that opens the private preview to whoever holds it, without the secret reaching the preview", async () => {
    const before = Date.now();
    const created = await share(privateBuild.build_id);
    expect(created.status).toBe(201);
    const body = (await created.json()) as { id: string; url: string; expires_at: string };
    const url = new URL(body.url);
    expect(url.host).toBe(privateHost);
    expect(url.pathname).toMatch(/^\/__gateway\/share\/[A-Za-z0-9_-]{43}$/);
    const expiresAt = Date.parse(body.expires_at);
    expect(expiresAt - before).toBeGreaterThanOrEqual(24 * 3600_000 - 1000);
    expect(expiresAt - before).toBeLessThanOrEqual(24 * 3600_000 + 60_000);

    const opened = await through(privateHost, url.pathname, BROWSER);
    expect(opened.status).toBe(303);
    expect(opened.headers.location).toBe("/");
    const { pair } = gatewayCookieOf(opened);
    const response = await through(privateHost, "/", { Cookie: `${pair}; session_id=s1` });
    expect(response.status).toBe(200);
    const seen = seenBy(response);
    expect(seen.headers.cookie).toBe("session_id=s1");
    expect(JSON.stringify(seen)).not.toContain(url.pathname.split("/").pop()!);

    const listed = await builds.app.fetch(`/builds/${privateBuild.build_id}/shares`, { headers: builds.authorization });
    expect(listed.status).toBe(200);
    const { shares } = (await listed.json()) as { shares: Record<string, unknown>[] };
    expect(shares.find((item) => item.id === body.id)).toMatchObject({ expires_at: body.expires_at });
    expect(JSON.stringify(shares)).not.toContain(url.pathname.split("/").pop()!);
  });

  it("stops opening the preview when revoked, within the gateway's cache time", async () => {
    const body = (await (await share(privateBuild.build_id, { expires_in_seconds: 3600 })).json()) as {
      id: string;
      url: string;
    };
    const path = new URL(body.url).pathname;
    const { pair } = gatewayCookieOf(await through(privateHost, path));
    expect((await through(privateHost, "/", { Cookie: pair })).status).toBe(200);
    const revoked = await builds.app.fetch(`/builds/${privateBuild.build_id}/shares/${body.id}`, {
      method: "DELETE",
      headers: builds.authorization,
    });
    expect(revoked.status).toBe(204);
    await sleep(GATEWAY_CACHE_MS);
    expect((await through(privateHost, "/", { Cookie: pair })).status).toBe(401);
    expect((await through(privateHost, path, BROWSER)).status).toBe(404);
    const again = await builds.app.fetch(`/builds/${privateBuild.build_id}/shares/${body.id}`, {
      method: "DELETE",
      headers: builds.authorization,
    });
    expect(again.status).toBe(404);
  });

  it("stops opening the preview when it expires", async () => {
    const body = (await (await share(privateBuild.build_id, { expires_in_seconds: 3 })).json()) as { url: string };
    const path = new URL(body.url).pathname;
    const { pair, attributes } = gatewayCookieOf(await through(privateHost, path));
    expect(Number(attributes.find((a) => a.startsWith("Max-Age="))!.split("=")[1])).toBeLessThanOrEqual(3);
    expect((await through(privateHost, "/", { Cookie: pair })).status).toBe(200);
    await sleep(3_000 + GATEWAY_CACHE_MS);
    expect((await through(privateHost, "/", { Cookie: pair })).status).toBe(401);
    expect((await through(privateHost, path)).status).toBe(404);
  });

  it("opens only the build it was made for", async () => {
    const body = (await (await share(privateBuild.build_id)).json()) as { url: string };
    const path = new URL(body.url).pathname;
    expect((await through(publicHost, path)).status).toBe(404);
  });

  it("is for the build's creator or an admin; others 403, anonymous 401; bad expiries 400", async () => {
    const other = await registerAndGetToken(builds.app);
    expect((await share(privateBuild.build_id, undefined, other.authorization)).status).toBe(403);
    const list = await builds.app.fetch(`/builds/${privateBuild.build_id}/shares`, { headers: other.authorization });
    expect(list.status).toBe(403);
    expect((await share(privateBuild.build_id, undefined, {})).status).toBe(401);
    for (const expires_in_seconds of [8 * 24 * 3600, 0, 1.5, "60"]) {
      const response = await share(privateBuild.build_id, { expires_in_seconds });
      expect([400], JSON.stringify(expires_in_seconds)).toContain(response.status);
      expect(JSON.stringify(await response.json())).toContain("expires_in_seconds");
    }
    expect((await share("0000000000000000")).status).toBe(404);
  });
});

describe("the gateway's cookie on every path of a preview", () => {
  it("is refused when sent twice and removed when sent once, on /websocket and /longpolling as on /", async () => {
    const user = await registerAndGetToken(builds.app);
    const { cookie } = await admitSignedIn((await signInWithCookie(builds.app, user.email, user.password)).cookie);
    for (const path of ["/", "/web/x", "/websocket", "/websocket/peek", "/longpolling", "/longpolling/im_status"]) {
      // A preview's own cookie of the gateway's name on its path: the browser sends both.
      const twice = await through(privateHost, path, { Cookie: `${cookie.pair}; session_id=s; preview-access=mine` });
      expect(twice.status, path).toBe(400);
      expect(twice.body, path).not.toContain("build_id");
      const once = await through(privateHost, path, { Cookie: `session_id=s; ${cookie.pair}; lang=es` });
      expect(once.status, path).toBe(200);
      expect(seenBy(once).headers.cookie, path).toBe("session_id=s; lang=es");
    }
  });
});

describe("the bypass secret against guessing", () => {
  it("answers 429 with Retry-After after 10 wrong secrets in a minute from one client, and only to that client", async () => {
    const guesser = "127.0.0.3";
    for (let guess = 0; guess < 10; guess++) {
      const wrong = await requestThrough(port, {
        host: privateHost,
        headers: { "X-Preview-Bypass": `${BYPASS}-${guess}` },
        localAddress: guesser,
      });
      expect(wrong.status, `guess ${guess + 1}`).toBe(401);
    }
    for (const secret of [`${BYPASS}-10`, BYPASS]) {
      const refused = await requestThrough(port, {
        host: privateHost,
        headers: { "X-Preview-Bypass": secret },
        localAddress: guesser,
      });
      expect(refused.status).toBe(429);
      expect(Number(refused.headers["retry-after"])).toBeGreaterThanOrEqual(1);
      expect(Number(refused.headers["retry-after"])).toBeLessThanOrEqual(60);
      expect(refused.body).not.toContain(privateBuild.build_id);
    }
    // Another client's right secret still opens the preview.
    const other = await requestThrough(port, {
      host: privateHost,
      headers: { "X-Preview-Bypass": BYPASS },
      localAddress: "127.0.0.4",
    });
    expect(other.status).toBe(200);
  });

  it("GET /gateway/resolve answers the gateway only: a request a proxy forwarded is refused", async () => {
    const ask = (headers: Record<string, string>) =>
      builds.app.fetch("/gateway/resolve", { headers: { "X-Gateway-Host": publicHost, ...headers } });
    const direct = await ask({});
    expect(direct.status).toBe(200);
    expect(direct.headers.get("x-gateway-upstream")).toMatch(/^127\.0\.0\.1:\d+$/);
    const forwardings: Record<string, string>[] = [
      { "X-Forwarded-For": "203.0.113.7" },
      { Forwarded: "for=203.0.113.7" },
      { "X-Real-IP": "203.0.113.7" },
    ];
    for (const forwarded of forwardings) {
      const refused = await ask({ ...forwarded, "X-Gateway-Bypass": BYPASS });
      expect(refused.status, JSON.stringify(forwarded)).toBe(403);
      expect(refused.headers.get("content-type")).toContain("application/problem+json");
      expect(refused.headers.get("x-gateway-upstream")).toBeNull();
    }
  });
});

describe("what the gateway's nginx writes, and as whom it runs", () => {
  it("logs the paths of tickets and share links without their secrets", async () => {
    const user = await registerAndGetToken(builds.app);
    const { ticketUrl } = await admitSignedIn((await signInWithCookie(builds.app, user.email, user.password)).cookie);
    const created = await builds.app.fetch(`/builds/${privateBuild.build_id}/share`, {
      method: "POST",
      headers: builds.authorization,
    });
    const shareUrl = new URL(((await created.json()) as { url: string }).url);
    // At the name the link is made for: the branch's, by default.
    expect((await through(shareUrl.host, shareUrl.pathname, BROWSER)).status).toBe(303);
    expect((await through(publicHost, "/web/reset_password?token=a-preview-token")).status).toBe(200);
    // nginx writes its log a buffer at a time, at most a second late.
    await sleep(1_500);
    const log = fs.readFileSync(path.join(gateway.folder, "access.log"), "utf8");
    expect(log).toContain('"GET /__gateway/admit HTTP/1.1" 303');
    expect(log).toContain('"GET /__gateway/share/- HTTP/1.1" 303');
    expect(log).toContain('"GET /web/reset_password HTTP/1.1" 200');
    for (const secret of [
      ticketUrl.searchParams.get("ticket")!,
      shareUrl.pathname.split("/").pop()!,
      "a-preview-token",
    ])
      expect(log).not.toContain(secret);
    expect(log).not.toContain("?");
  });

  it.runIf(process.getuid?.() === 0)(
    "runs its workers as www-data when started as root, which still spool bodies and keep answers",
    async () => {
      const wwwData = Number(execFileSync("id", ["-u", "www-data"], { encoding: "utf8" }));
      const master = Number(fs.readFileSync(path.join(gateway.folder, "nginx.pid"), "utf8"));
      const uidOf = (pid: number) => Number(/^Uid:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))![1]);
      const workers = fs
        .readdirSync("/proc")
        .filter((entry) => /^\d+$/.test(entry))
        .map(Number)
        .filter((pid) => {
          try {
            return Number(/^PPid:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))![1]) === master;
          } catch {
            return false;
          }
        });
      expect(uidOf(master)).toBe(0);
      expect(workers.length).toBeGreaterThan(0);
      for (const worker of workers) expect(uidOf(worker)).toBe(wwwData);
      // A body past nginx's buffer is spooled to its temp folder by a worker before it reaches the preview.
      const posted = await requestThrough(port, {
        host: publicHost,
        path: "/upload",
        method: "POST",
        headers: { "Content-Type": "application/octet-stream" },
        body: Buffer.alloc(2 * 1024 * 1024, 7),
      });
      expect(posted.status).toBe(200);
      expect(seenBy(posted).headers["content-length"]).toBe(String(2 * 1024 * 1024));
      // The resolver's answers are kept in a folder the workers write, outside the data folder.
      const site = fs.readFileSync(path.join(gateway.folder, "previews.conf"), "utf8");
      const cache = /proxy_cache_path (\S+)/.exec(site)![1];
      expect(path.relative(builds.app.dataDir, cache).startsWith("..")).toBe(true);
      const kept = fs.readdirSync(cache, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
      expect(kept.length).toBeGreaterThan(0);
      for (const entry of kept) expect(fs.statSync(path.join(entry.parentPath, entry.name)).uid).toBe(wwwData);
      expect(gateway.output()).not.toMatch(/\[(crit|alert|emerg)\]|Permission denied/);
    },
  );

  it("keeps its connections to a preview open between requests", async () => {
    const ports = new Set<number>();
    for (let request = 0; request < 12; request++) {
      const seen = seenBy(await through(publicHost, "/"));
      expect(seen.headers.connection).toBeUndefined();
      ports.add((seen as unknown as { peer_port: number }).peer_port);
    }
    // One kept connection per nginx worker at most, for requests that come one at a time.
    expect(ports.size).toBeLessThanOrEqual(os.availableParallelism());
  });
});

describe("a private build in the API: for signed-in users only, a stranger gets the 404 of no build", () => {
  const NO_BUILD = "0123456789abcdef";
  const anonymous = (pathname: string, init: RequestInit = {}) => builds.app.fetch(pathname, init);
  const signedIn = (pathname: string) => builds.app.fetch(pathname, { headers: builds.authorization });
  /** A problem with the build's id put in place of the id it names: two 404s compared as a stranger sees them. */
  const problemOf = async (response: Response, id: string) => ({
    status: response.status,
    type: response.headers.get("content-type"),
    body: (await response.text()).replaceAll(id, "<id>"),
  });

  it("GET /builds/{build_id} and every log (JSON, raw, live) of a private build: 404 as for a build that does not exist", async () => {
    const id = privateBuild.build_id;
    for (const suffix of [
      "",
      "/logs",
      "/logs?stage=start",
      "/logs/raw",
      "/logs/raw?stage=start",
      "/logs/stream?stage=start",
    ]) {
      const hidden = await problemOf(await anonymous(`/builds/${id}${suffix}`), id);
      const missing = await problemOf(await anonymous(`/builds/${NO_BUILD}${suffix}`), NO_BUILD);
      expect(hidden, suffix).toEqual(missing);
      expect(hidden.status, suffix).toBe(404);
      // A token that no longer holds makes no difference; a signed-in user sees it all.
      const expired = await anonymous(`/builds/${id}${suffix}`, { headers: { Authorization: "Bearer not-a-token" } });
      expect(expired.status, suffix).toBe(404);
      if (suffix.startsWith("/logs/stream")) continue;
      expect((await signedIn(`/builds/${id}${suffix}`)).status, suffix).toBe(200);
      expect((await anonymous(`/builds/${publicBuild.build_id}${suffix}`)).status, suffix).toBe(200);
    }
    const stream = await signedIn(`/builds/${id}/logs/stream?stage=start`);
    expect(stream.status).toBe(200);
    expect(stream.headers.get("content-type")).toMatch(/^text\/event-stream/);
    await stream.body?.cancel();
  });

  it("GET /builds lists a private build to signed-in users only, and its id is no cursor for a stranger", async () => {
    const ids = async (response: Response) =>
      ((await response.json()) as { builds: BuildJson[] }).builds.map((build) => build.build_id);
    const strangers = await ids(await anonymous("/builds?limit=100"));
    expect(strangers).toContain(publicBuild.build_id);
    expect(strangers).not.toContain(privateBuild.build_id);
    expect(await ids(await signedIn("/builds?limit=100"))).toEqual(
      expect.arrayContaining([publicBuild.build_id, privateBuild.build_id]),
    );
    const hidden = await problemOf(await anonymous(`/builds?cursor=${privateBuild.build_id}`), privateBuild.build_id);
    expect(hidden).toEqual(await problemOf(await anonymous(`/builds?cursor=${NO_BUILD}`), NO_BUILD));
    expect((await signedIn(`/builds?cursor=${privateBuild.build_id}`)).status).toBe(200);
  });

  it("the builds console's first paint (the list, its counters) holds a private build for a signed-in user only", async () => {
    const page = async (headers: Record<string, string>) =>
      (await anonymous("/builds", { headers: { ...BROWSER, ...headers } })).text();
    const stranger = await page({});
    // Booleans: a failure prints the ids, not the whole page.
    expect(stranger.includes(publicBuild.build_id)).toBe(true);
    expect(stranger.includes(privateBuild.build_id)).toBe(false);
    const user = await registerAndGetToken(builds.app);
    const { cookie } = await signInWithCookie(builds.app, user.email, user.password);
    expect((await page({ Cookie: cookie })).includes(privateBuild.build_id)).toBe(true);
  });
});

describe("waking a private preview", () => {
  it("an anonymous visit never wakes it; an admitted one does", async () => {
    const slept = await builds.app.fetch(`/builds/${privateBuild.build_id}/sleep`, {
      method: "POST",
      headers: builds.authorization,
    });
    expect(slept.status).toBe(200);
    await builds.waitForStatus(privateBuild.build_id, ["sleeping"]);
    await sleep(1_100);
    const anonymous = await through(privateHost, "/", BROWSER);
    expect(anonymous.status).toBe(303);
    await sleep(1_500);
    const seen = await builds.get(`/builds/${privateBuild.build_id}`, { headers: builds.authorization });
    expect(((await seen.json()) as BuildJson).status).toBe("sleeping");
    const admitted = await through(privateHost, "/", { "X-Preview-Bypass": BYPASS });
    expect(admitted.status).toBe(503);
    await builds.waitForStatus(privateBuild.build_id, ["starting", "running"], 60_000);
  });
});
