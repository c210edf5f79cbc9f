import fs from "node:fs";
import { encode } from "next-auth/jwt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AppServer, sessionSecret, sharedAppServer, startAppServer } from "../support/app-server";
import { queryDatabase, testDatabase } from "../support/database";
import { registerAndGetToken, requestToken } from "../support/users";

let app: AppServer;
beforeAll(async () => {
  // ACCESS_TOKEN_EXPIRE_MINUTES is 30 by default.
  app = await sharedAppServer();
});
const leftoverFolders: string[] = [];
afterAll(async () => {
  await app?.stop();
  for (const folder of leftoverFolders) fs.rmSync(folder, { recursive: true, force: true });
});

const postJson = (path: string, body: unknown) =>
  app.fetch(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });

describe("POST /users/", () => {
  it("registers a user and never returns the password hash", async () => {
    const response = await postJson("/users/", { email: "Ana@Example.com", password: "long enough" });
    expect(response.status).toBe(201);
    const user = await response.json();
    expect(user).toEqual({
      id: expect.any(Number),
      email: "ana@example.com",
      display_name: "ana",
      role: "admin",
      is_active: true,
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
    });
    expect(JSON.stringify(user)).not.toMatch(/hash|password/i);
  });

  it("stores a slow salted hash at PASSWORD_HASH_COST, not the password", async () => {
    await postJson("/users/", { email: "hash@example.com", password: "long enough" });
    const [row] = queryDatabase<{ passwordHash: string }>(
      app,
      `SELECT "passwordHash" FROM "User" WHERE "email" = 'hash@example.com'`,
    );
    // bcrypt at the test servers' cost (tests/support/app-server.ts); the default, 12, is tests/unit/env.test.ts's.
    expect(row.passwordHash).toMatch(/^\$2[aby]\$10\$/);
  });

  it("answers 409 for an email that exists in any letter case", async () => {
    await postJson("/users/", { email: "dup@example.com", password: "long enough" });
    const response = await postJson("/users/", { email: "DUP@example.COM", password: "long enough" });
    expect(response.status).toBe(409);
    expect(response.headers.get("content-type")).toBe("application/problem+json");
    expect((await response.json()).detail).toContain("dup@example.com");
  });

  it("answers 400 naming each invalid field", async () => {
    const response = await postJson("/users/", { email: "not-an-email", password: "short" });
    expect(response.status).toBe(400);
    const problem = await response.json();
    expect(problem).toMatchObject({ title: "Bad Request", status: 400 });
    expect(problem.errors.map((e: { field: string }) => e.field).sort()).toEqual(["body.email", "body.password"]);
  });

  it("answers 400 for a body that is not JSON, or of the wrong type", async () => {
    const notJson = await app.fetch("/users/", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: "{email:",
    });
    expect(notJson.status).toBe(400);
    expect((await notJson.json()).detail).toMatch(/valid JSON/);
    const wrongType = await postJson("/users/", { email: 42, password: ["x"] });
    expect(wrongType.status).toBe(400);
    const array = await postJson("/users/", []);
    expect(array.status).toBe(400);
  });
});

describe("POST /users/token", () => {
  it("issues a bearer token that expires", async () => {
    await postJson("/users/", { email: "token@example.com", password: "long enough" });
    const response = await requestToken(app, "TOKEN@example.com", "long enough");
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      access_token: expect.any(String),
      token_type: "bearer",
      expires_in: 1800,
    });
  });

  it("answers 401 for a wrong password or an unknown email", async () => {
    await postJson("/users/", { email: "wrong@example.com", password: "long enough" });
    expect((await requestToken(app, "wrong@example.com", "not it at all")).status).toBe(401);
    expect((await requestToken(app, "nobody@example.com", "long enough")).status).toBe(401);
  });

  it("answers 400 when a form field is missing or the body is not a form", async () => {
    const missing = await app.fetch("/users/token", { method: "POST", body: new URLSearchParams({ username: "a" }) });
    expect(missing.status).toBe(400);
    expect((await missing.json()).errors).toEqual([{ field: "form.password", message: expect.any(String) }]);
    const json = await postJson("/users/token", { username: "a", password: "b" });
    expect(json.status).toBe(400);
  });

  it("answers 429 with Retry-After after ten failures within 15 minutes, even with the right password", async () => {
    await postJson("/users/", { email: "guess@example.com", password: "long enough" });
    for (let attempt = 0; attempt < 10; attempt++) {
      expect((await requestToken(app, "guess@example.com", `wrong ${attempt}`)).status).toBe(401);
    }
    const throttled = await requestToken(app, "guess@example.com", "long enough");
    expect(throttled.status).toBe(429);
    const retryAfter = Number(throttled.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(800);
    expect(retryAfter).toBeLessThanOrEqual(900);
    // Another account is not affected.
    const other = await registerAndGetToken(app);
    expect(other.token).toBeTruthy();
  });
});

describe("GET /users/me", () => {
  it("answers the user behind a bearer token", async () => {
    const { email, authorization } = await registerAndGetToken(app);
    const response = await app.fetch("/users/me", { headers: authorization });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ email, is_active: true });
  });

  it("answers 401 with WWW-Authenticate for a missing, malformed or forged token", async () => {
    const attempts: Record<string, string>[] = [
      {},
      { Authorization: "Basic abc" },
      { Authorization: "Bearer not-a-token" },
    ];
    for (const headers of attempts) {
      const response = await app.fetch("/users/me", { headers });
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toMatch(/^Bearer/);
      expect(response.headers.get("content-type")).toBe("application/problem+json");
    }
  });

  it("answers 401 once the user is deactivated or deleted", async () => {
    const { email, authorization } = await registerAndGetToken(app);
    const byEmail = (statement: string) => ({
      sqlite: `${statement} ?`,
      postgresql: `${statement} :'params'::json ->> 0`,
    });
    queryDatabase(app, byEmail(`UPDATE "User" SET "isActive" = false WHERE "email" =`), [email]);
    expect((await app.fetch("/users/me", { headers: authorization })).status).toBe(401);
    queryDatabase(app, byEmail(`DELETE FROM "User" WHERE "email" =`), [email]);
    expect((await app.fetch("/users/me", { headers: authorization })).status).toBe(401);
  });
});

describe("tokens", () => {
  it("are rejected once expired, though correctly signed", async () => {
    const { email } = await registerAndGetToken(app);
    const [{ id }] = queryDatabase<{ id: number }>(
      app,
      {
        sqlite: `SELECT "id" FROM "User" WHERE "email" = ?`,
        postgresql: `SELECT "id" FROM "User" WHERE "email" = :'params'::json ->> 0`,
      },
      [email],
    );
    const secret = sessionSecret(app);
    const expired = await encode({ token: { sub: String(id), sid: "expired-session", email }, secret, maxAge: -60 });
    const response = await app.fetch("/users/me", { headers: { Authorization: `Bearer ${expired}` } });
    expect(response.status).toBe(401);
    const fresh = await encode({ token: { sub: String(id), sid: "fresh-session", email }, secret, maxAge: 60 });
    expect((await app.fetch("/users/me", { headers: { Authorization: `Bearer ${fresh}` } })).status).toBe(200);
  });

  // PostgreSQL takes the secret from NEXTAUTH_SECRET, which every instance must share: nothing is generated.
  it.skipIf(testDatabase() === "postgresql")(
    "survive a restart: the secret generated on first start is kept with mode 0600",
    async () => {
      const first = await startAppServer();
      const { authorization } = await registerAndGetToken(first);
      const secretFile = `${first.dataDir}/nextauth-secret`;
      expect(fs.readFileSync(secretFile, "utf8").length).toBeGreaterThanOrEqual(32);
      expect(fs.statSync(secretFile).mode & 0o777).toBe(0o600);
      // One server per data folder: the first stops, another starts on its folder.
      await first.stopProcess();
      leftoverFolders.push(first.dataDir);
      const second = await startAppServer({ DATABASE_URL: `file:${first.databaseFile}` });
      try {
        expect((await second.fetch("/users/me", { headers: authorization })).status).toBe(200);
      } finally {
        await second.stop();
      }
    },
  );
});
