import { spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { encode } from "next-auth/jwt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AppServer, sessionSecret, sharedAppServer, startAppServer } from "../support/app-server";
import { queryDatabase } from "../support/database";
import { requestFrom, signInWithCookie, signOutWithCookie } from "../support/sessions";
import { registerAndGetToken, requestToken } from "../support/users";

// The login throttle; a bearer token over a cookie, a lowercase scheme, sign-out revoking, a short secret file
// stopping the start; forged tokens refused.

let app: AppServer;
beforeAll(async () => {
  // 127.0.0.3 plays a reverse proxy: only its X-Forwarded-For is believed (SHARED_SERVER_ENV).
  app = await sharedAppServer();
});
afterAll(() => app?.stop());

const tokenForm = (username: string, password: string) => ({
  method: "POST",
  headers: { "Content-Type": "application/x-www-form-urlencoded" } as Record<string, string>,
  body: new URLSearchParams({ username, password }).toString(),
});

describe("the login throttle (POST /users/token)", () => {
  it("cannot be raced: of 60 simultaneous attempts at most 10 reach the password check, the rest get 429", async () => {
    const { email, password } = await registerAndGetToken(app);
    const attempts = Array.from({ length: 60 }, (_, index) => (index === 30 ? password : `wrong guess ${index}`));
    const responses = await Promise.all(attempts.map((guess) => requestToken(app, email, guess)));
    const statuses = responses.map((response) => response.status);
    const checked = statuses.filter((status) => status === 401 || status === 200).length;
    expect(statuses.every((status) => [200, 401, 429].includes(status))).toBe(true);
    expect(checked).toBeLessThanOrEqual(10);
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(50);
    const throttled = responses.find((response) => response.status === 429)!;
    expect(Number(throttled.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  it("locks out one client address, not the account: the owner still signs in from elsewhere", async () => {
    const { email, password } = await registerAndGetToken(app);
    const url = `${app.baseUrl}/users/token`;
    for (let attempt = 0; attempt < 10; attempt++) {
      expect((await requestFrom("127.0.0.2", url, tokenForm(email, `wrong ${attempt}`))).status).toBe(401);
    }
    const locked = await requestFrom("127.0.0.2", url, tokenForm(email, password));
    expect(locked.status).toBe(429);
    expect(Number(locked.headers["retry-after"])).toBeGreaterThan(800);
    expect((await requestFrom("127.0.0.4", url, tokenForm(email, password))).status).toBe(200);
  });

  it("ignores X-Forwarded-For from a client that is not a trusted proxy", async () => {
    const { email, password } = await registerAndGetToken(app);
    const url = `${app.baseUrl}/users/token`;
    for (let attempt = 0; attempt < 10; attempt++) {
      const spoofed = { ...tokenForm(email, `wrong ${attempt}`) };
      spoofed.headers = { ...spoofed.headers, "X-Forwarded-For": `10.9.9.${attempt}` };
      expect((await requestFrom("127.0.0.5", url, spoofed)).status).toBe(401);
    }
    const rotated = tokenForm(email, password);
    rotated.headers = { ...rotated.headers, "X-Forwarded-For": "10.9.9.200" };
    expect((await requestFrom("127.0.0.5", url, rotated)).status).toBe(429);
  });

  it("believes X-Forwarded-For from a trusted proxy (TRUSTED_PROXIES), per forwarded client", async () => {
    const { email, password } = await registerAndGetToken(app);
    const url = `${app.baseUrl}/users/token`;
    const via = (client: string, guess: string) => {
      const form = tokenForm(email, guess);
      return requestFrom("127.0.0.3", url, {
        ...form,
        headers: { ...form.headers, "X-Forwarded-For": `${client}, 127.0.0.3` },
      });
    };
    for (let attempt = 0; attempt < 10; attempt++)
      expect((await via("203.0.113.7", `wrong ${attempt}`)).status).toBe(401);
    expect((await via("203.0.113.7", password)).status).toBe(429);
    expect((await via("203.0.113.8", password)).status).toBe(200);
  });
});

describe("credentials", () => {
  it("a bearer token wins over a session cookie, and the scheme is case-insensitive", async () => {
    const cookieUser = await registerAndGetToken(app);
    const bearerUser = await registerAndGetToken(app);
    const { sessionCookie } = await signInWithCookie(app, cookieUser.email, cookieUser.password);
    const both = await app.fetch("/users/me", { headers: { Cookie: sessionCookie, ...bearerUser.authorization } });
    expect(both.status).toBe(200);
    expect((await both.json()).email).toBe(bearerUser.email);
    const forgedBearer = await app.fetch("/users/me", {
      headers: { Cookie: sessionCookie, Authorization: "Bearer forged" },
    });
    expect(forgedBearer.status).toBe(401);
    for (const scheme of ["bearer", "BEARER"]) {
      const response = await app.fetch("/users/me", { headers: { Authorization: `${scheme} ${bearerUser.token}` } });
      expect(response.status).toBe(200);
    }
    expect((await app.fetch("/users/me", { headers: { Cookie: sessionCookie } })).status).toBe(200);
  });

  it("a token is refused after DELETE /users/token (sign-out of an API client)", async () => {
    const { authorization } = await registerAndGetToken(app);
    expect((await app.fetch("/users/me", { headers: authorization })).status).toBe(200);
    expect((await app.fetch("/users/token", { method: "DELETE", headers: authorization })).status).toBe(204);
    const after = await app.fetch("/users/me", { headers: authorization });
    expect(after.status).toBe(401);
    expect((await after.json()).detail).toMatch(/signed out/);
  });

  it("the dashboard's sign-out revokes the session: a kept copy of the cookie stops working", async () => {
    const user = await registerAndGetToken(app);
    const signedIn = await signInWithCookie(app, user.email, user.password);
    // next-auth re-issues the cookie on each session read; an attacker's older copy must die as well.
    const refreshed = await app.fetch("/api/auth/session", { headers: { Cookie: signedIn.cookie } });
    expect((await refreshed.json()).user.email).toBe(user.email);
    expect((await app.fetch("/users/me", { headers: { Cookie: signedIn.sessionCookie } })).status).toBe(200);
    const signOut = await signOutWithCookie(app, signedIn);
    expect(signOut.status).toBeLessThan(400);
    expect((await app.fetch("/users/me", { headers: { Cookie: signedIn.sessionCookie } })).status).toBe(401);
    const session = await app.fetch("/api/auth/session", { headers: { Cookie: signedIn.sessionCookie } });
    expect(await session.json()).toEqual({});
  });

  describe("forged tokens are refused (these held; kept as regression cases)", () => {
    let userId: number;
    let secret: string;
    beforeAll(async () => {
      const { email } = await registerAndGetToken(app);
      [{ id: userId }] = queryDatabase<{ id: number }>(
        app,
        {
          sqlite: `SELECT "id" FROM "User" WHERE "email" = ?`,
          postgresql: `SELECT "id" FROM "User" WHERE "email" = :'params'::json ->> 0`,
        },
        [email],
      );
      secret = sessionSecret(app);
    });
    const me = (token: string) => app.fetch("/users/me", { headers: { Authorization: `Bearer ${token}` } });
    const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");

    it("alg none, a token signed (not encrypted) with the secret, a wrong key", async () => {
      const now = Math.floor(Date.now() / 1000);
      const claims = { sub: String(userId), sid: "s", iat: now, exp: now + 600 };
      expect((await me(`${b64({ alg: "none", typ: "JWT" })}.${b64(claims)}.`)).status).toBe(401);
      const header = b64({ alg: "HS256", typ: "JWT" });
      const signature = crypto
        .createHmac("sha256", secret)
        .update(`${header}.${b64(claims)}`)
        .digest("base64url");
      expect((await me(`${header}.${b64(claims)}.${signature}`)).status).toBe(401);
      const wrongKey = await encode({ token: { sub: String(userId), sid: "s" }, secret: "x".repeat(48), maxAge: 600 });
      expect((await me(wrongKey)).status).toBe(401);
    });

    it("a tampered token, an expired one, one without a session id; the genuine one passes", async () => {
      const genuine = await encode({ token: { sub: String(userId), sid: "genuine" }, secret, maxAge: 600 });
      expect((await me(genuine)).status).toBe(200);
      const parts = genuine.split(".");
      const flipped = parts[3][5] === "A" ? "B" : "A";
      parts[3] = parts[3].slice(0, 5) + flipped + parts[3].slice(6);
      expect((await me(parts.join("."))).status).toBe(401);
      const expired = await encode({ token: { sub: String(userId), sid: "old" }, secret, maxAge: -60 });
      expect((await me(expired)).status).toBe(401);
      const noSession = await encode({ token: { sub: String(userId) }, secret, maxAge: 600 });
      expect((await me(noSession)).status).toBe(401);
    });
  });
});

describe("an API token cannot be extended", () => {
  /** The session tokens a response sets (an empty value clears the cookie). */
  const sessionTokensSet = (response: Response) =>
    response.headers
      .getSetCookie()
      .map((line) => line.split(";")[0])
      .filter((pair) => pair.startsWith("next-auth.session-token="))
      .map((pair) => pair.slice("next-auth.session-token=".length))
      .filter(Boolean);

  it("sent as the session cookie to /api/auth/session, it is not re-issued, and the API refuses it as a cookie", async () => {
    const { token, authorization } = await registerAndGetToken(app);
    const cookie = { Cookie: `next-auth.session-token=${token}` };
    const session = await app.fetch("/api/auth/session", { headers: cookie });
    expect(session.status).toBe(200);
    expect(await session.json()).toEqual({});
    expect(sessionTokensSet(session)).toEqual([]);

    const asCookie = await app.fetch("/users/me", { headers: cookie });
    expect(asCookie.status).toBe(401);
    expect((await asCookie.json()).detail).toMatch(/Authorization header/);
    // As a bearer token it works until it expires.
    expect((await app.fetch("/users/me", { headers: authorization })).status).toBe(200);
  });

  it("the dashboard's own session cookie is still refreshed", async () => {
    const { email, password } = await registerAndGetToken(app);
    const { sessionCookie } = await signInWithCookie(app, email, password);
    const session = await app.fetch("/api/auth/session", { headers: { Cookie: sessionCookie } });
    expect((await session.json()).user.email).toBe(email);
    expect(sessionTokensSet(session)).toHaveLength(1);
  });
});

describe("the secret file", () => {
  const projectRoot = path.resolve(import.meta.dirname, "..", "..");
  it.each([
    ["an empty", ""],
    ["a short", "abc123\n"],
  ])("%s secret file stops the start with a message", (_, content) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "secret-test-"));
    try {
      fs.writeFileSync(path.join(dir, "nextauth-secret"), content, { mode: 0o600 });
      const result = spawnSync(path.join(projectRoot, "node_modules", ".bin", "tsx"), ["scripts/prepare-start.ts"], {
        cwd: projectRoot,
        env: { ...process.env, NEXTAUTH_SECRET: undefined, DATABASE_URL: `file:${dir}/app.db` },
        encoding: "utf8",
      });
      expect(result.status).toBe(1);
      expect(result.stderr).toContain(path.join(dir, "nextauth-secret"));
      expect(result.stderr).toMatch(/at least 32 are needed/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("under HTTPS (NEXTAUTH_URL https://...)", () => {
  let secureApp: AppServer;
  beforeAll(async () => {
    secureApp = await startAppServer({ NEXTAUTH_URL: "https://dashboard.example.test/" });
  });
  afterAll(() => secureApp?.stop());

  it("the session cookie is a __Host- cookie: Secure, Path=/, no Domain; the API reads it", async () => {
    const user = await registerAndGetToken(secureApp);
    const csrf = await secureApp.fetch("/api/auth/csrf");
    const { csrfToken } = await csrf.json();
    const csrfCookie = csrf.headers
      .getSetCookie()
      .map((line) => line.split(";")[0])
      .join("; ");
    const callback = await secureApp.fetch("/api/auth/callback/credentials", {
      method: "POST",
      redirect: "manual",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: csrfCookie },
      body: new URLSearchParams({ csrfToken, email: user.email, password: user.password, json: "true" }),
    });
    const line = callback.headers.getSetCookie().find((cookie) => cookie.includes("session-token"));
    expect(line).toMatch(/^__Host-next-auth\.session-token=/);
    expect(line).toMatch(/;\s*Secure/i);
    expect(line).toMatch(/;\s*Path=\//i);
    expect(line).toMatch(/;\s*HttpOnly/i);
    expect(line).not.toMatch(/Domain=/i);
    const me = await secureApp.fetch("/users/me", { headers: { Cookie: line!.split(";")[0] } });
    expect(me.status).toBe(200);
    expect((await me.json()).email).toBe(user.email);
  });
});
