import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AppServer, sharedAppServer } from "../support/app-server";

/**
 * Security suite: a display name is shown publicly as the creator of builds, so nobody may
 * take the service's own names or one that reads as another user's (case, spacing, accents, lookalike letters).
 * The endpoint's ordinary behaviour is in users.test.ts.
 */
let app: AppServer;
beforeAll(async () => {
  app = await sharedAppServer();
});
afterAll(async () => {
  await app?.stop();
});

const postJson = (path: string, body: unknown) =>
  app.fetch(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });

describe("POST /users/ display names", () => {
  const register = (email: string, display_name?: string) =>
    postJson("/users/", { email, password: "long enough", display_name });

  it("refuses the service's own names in any spelling (400 naming the field)", async () => {
    for (const name of ["build service", "Build  Service", "ＢＵＩＬＤ-service", "bυild sеrvice", "Admin"]) {
      const response = await register(`reserved-${crypto.randomUUID()}@example.com`, name);
      expect(response.status, name).toBe(400);
      expect((await response.json()).errors).toEqual([
        { field: "body.display_name", message: "is reserved: it is one of the service's own names" },
      ]);
    }
  });

  it("refuses a name another user's already reads as (409 naming it); a different one is fine", async () => {
    expect((await register("lucia@example.com", "Lucía Pérez")).status).toBe(201);
    for (const name of ["lucía pérez", "LUCIA PEREZ", "Lucía  Pérez.", "Luсía Pérez" /* Cyrillic с */]) {
      const response = await register(`other-${crypto.randomUUID()}@example.com`, name);
      expect(response.status, name).toBe(409);
      expect(response.headers.get("content-type")).toBe("application/problem+json");
      expect((await response.json()).detail).toContain(`"${name}" is another user's`);
    }
    expect((await register("lucia.p@example.com", "Lucía P.")).status).toBe(201);
  });

  it("numbers a default name another user has: two people called ana show apart", async () => {
    const first = await (await register("ana.b@example.com", "maria")).json();
    const second = await (await register("maria@example.org")).json();
    expect([first.display_name, second.display_name]).toEqual(["maria", "maria-2"]);
    const third = await (await register("build.service@example.org")).json();
    expect(third.display_name).toBe("build.service-2");
    const reserved = await (await register("admin@example.org")).json();
    expect(reserved.display_name).toBe("admin-2");
  });
});
