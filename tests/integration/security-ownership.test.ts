import { spawnSync } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AppServer, commandEnvironment, startAppServer } from "../support/app-server";
import {
  type BuildJson,
  type BuildsApp,
  connectBuildsApp,
  fixtureConfig,
  makeBuildsFixture,
  tearDownBuilds,
} from "../support/builds";
import { registerAndGetToken } from "../support/users";

// Roles, ownership of builds, closed registration, display names instead of emails.
// ADMIN_EMAILS never makes a self-registered account an admin; the operator's command does.

const projectRoot = path.resolve(import.meta.dirname, "..", "..");

/** `npm run users:admin -- ...args` against the app's database, as the operator would run it on the server. */
function usersAdmin(app: AppServer, ...args: string[]) {
  return spawnSync(path.join(projectRoot, "node_modules", ".bin", "tsx"), ["scripts/users-admin.ts", ...args], {
    cwd: projectRoot,
    env: { ...process.env, ...commandEnvironment(app) },
    encoding: "utf8",
    timeout: 120_000,
  });
}

const roleOf = async (app: AppServer, user: { authorization: Record<string, string> }) =>
  (await (await app.fetch("/users/me", { headers: user.authorization })).json()).role;

describe("ownership of builds (POST /builds/{id}/cancel, DELETE /builds/{id})", () => {
  let builds: BuildsApp;
  let admin: Awaited<ReturnType<typeof registerAndGetToken>>;
  let owner: Awaited<ReturnType<typeof registerAndGetToken>>;
  let stranger: Awaited<ReturnType<typeof registerAndGetToken>>;
  let listed: Awaited<ReturnType<typeof registerAndGetToken>>;
  let madeAdmin: Awaited<ReturnType<typeof registerAndGetToken>>;

  beforeAll(async () => {
    // Item 4: previews on their own host names, never the dashboard's (cookies ignore ports).
    const fixture = makeBuildsFixture(
      (f) => `${fixtureConfig(f, { maxConcurrent: 1 })}\npreview_url: "http://{build_id}.preview.localhost:{port}/"\n`,
    );
    const app = await startAppServer({
      BUILDS_CONFIG: fixture.configFile,
      ADMIN_EMAILS: "boss@example.com, other@example.com",
    });
    admin = await registerAndGetToken(app, "first@example.com");
    owner = await registerAndGetToken(app, "owner.name@example.com");
    stranger = await registerAndGetToken(app, "stranger@example.com");
    listed = await registerAndGetToken(app, "Boss@Example.com");
    madeAdmin = await registerAndGetToken(app, "deputy@example.com");
    expect(usersAdmin(app, "--", "Deputy@Example.com").status).toBe(0);
    builds = connectBuildsApp(app, fixture, admin.authorization);
  });
  afterAll(() => tearDownBuilds(builds));

  const start = async (authorization: Record<string, string>, modules = ["base_mod"]) => {
    const response = await builds.app.fetch("/builds", {
      method: "POST",
      headers: { ...authorization, "Content-Type": "application/json" },
      body: JSON.stringify({ repositories: [{ repository: "demo" }], modules }),
    });
    expect(response.status).toBe(202);
    return (await response.json()) as BuildJson;
  };
  const cancel = (id: string, authorization: Record<string, string>) =>
    builds.app.fetch(`/builds/${id}/cancel`, { method: "POST", headers: authorization });
  const destroy = (id: string, authorization: Record<string, string>) =>
    builds.app.fetch(`/builds/${id}`, { method: "DELETE", headers: authorization });

  it("the first user and those made admins on the server are admins; ADMIN_EMAILS grants nothing while registration is open", async () => {
    const roles = [];
    for (const user of [admin, owner, stranger, listed, madeAdmin]) roles.push(await roleOf(builds.app, user));
    expect(roles).toEqual(["admin", "user", "user", "user", "admin"]);
    expect(builds.app.output()).toContain("ADMIN_EMAILS is ignored while REGISTRATION=open");
    // A listed address that registered itself cannot act as an admin.
    const build = await start(owner.authorization, ["base_mod", "slow_install"]);
    expect((await cancel(build.build_id, listed.authorization)).status).toBe(403);
    expect((await cancel(build.build_id, owner.authorization)).status).toBe(200);
  });

  it("npm run users:admin -- [--revoke] EMAIL grants and withdraws admin; an unknown email exits 1", async () => {
    const user = await registerAndGetToken(builds.app, "temp.admin@example.com");
    const granted = usersAdmin(builds.app, "temp.admin@example.com");
    expect(granted.stdout).toMatch(/^temp\.admin@example\.com \(user \d+\) is now an admin\.$/m);
    expect(await roleOf(builds.app, user)).toBe("admin");
    expect(usersAdmin(builds.app, "--revoke", "temp.admin@example.com").status).toBe(0);
    expect(await roleOf(builds.app, user)).toBe("user");
    const unknown = usersAdmin(builds.app, "nobody@example.com");
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toContain("No user has the email nobody@example.com");
  }, 240_000);

  it("another user cannot cancel or destroy a build (403 problem); its creator can", async () => {
    const build = await start(owner.authorization, ["base_mod", "slow_install"]);
    const refused = await cancel(build.build_id, stranger.authorization);
    expect(refused.status).toBe(403);
    expect(refused.headers.get("content-type")).toBe("application/problem+json");
    expect((await refused.json()).detail).toMatch(/Only the user who started build .* or an admin/);
    expect((await (await builds.get(`/builds/${build.build_id}`)).json()).status).not.toBe("canceled");
    expect((await cancel(build.build_id, owner.authorization)).status).toBe(200);

    const finished = await start(owner.authorization);
    const running = await builds.waitForStatus(finished.build_id, ["running", "failed"], 60_000);
    expect(running.status).toBe("running");
    const preview = new URL(running.preview_url!);
    expect(preview.hostname).toBe(`${finished.build_id}.preview.localhost`);
    // *.localhost is the loopback: the preview answers there under its own host name.
    const served = await fetch(`http://127.0.0.1:${preview.port}/`, { headers: { Host: preview.host } });
    expect(await served.text()).toContain(finished.build_id);
    expect((await destroy(finished.build_id, stranger.authorization)).status).toBe(403);
    expect((await builds.get(`/builds/${finished.build_id}`).then((r) => r.json())).status).not.toMatch(/destroy/);
    const destroyed = await destroy(finished.build_id, owner.authorization);
    expect(destroyed.status).toBe(200);
    expect((await destroyed.json()).status).toBe("destroyed");
  });

  it("an admin makes another user an admin with PATCH /users/{user_id}; nobody else may, nor change their own role", async () => {
    const user = await registerAndGetToken(builds.app, "promoted.by.admin@example.com");
    const { id } = await (await builds.app.fetch("/users/me", { headers: user.authorization })).json();
    const { id: adminId } = await (await builds.app.fetch("/users/me", { headers: admin.authorization })).json();
    const patch = (by: { authorization: Record<string, string> }, target: number | string, body: unknown) =>
      builds.app.fetch(`/users/${target}`, {
        method: "PATCH",
        headers: { ...by.authorization, "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });

    for (const by of [stranger, user, listed]) {
      const refused = await patch(by, id, { role: "admin" });
      expect(refused.status).toBe(403);
      expect(refused.headers.get("content-type")).toBe("application/problem+json");
    }
    expect(await roleOf(builds.app, user)).toBe("user");

    const granted = await patch(admin, id, { role: "admin" });
    expect(granted.status).toBe(200);
    expect(await granted.json()).toMatchObject({ id, role: "admin", display_name: "promoted.by.admin" });
    expect(await roleOf(builds.app, user)).toBe("admin");
    expect((await patch(admin, adminId, { role: "user" })).status).toBe(409);
    expect((await patch(admin, 999_999, { role: "admin" })).status).toBe(404);
    expect((await patch(admin, id, { role: "owner" })).status).toBe(400);
    expect((await patch(admin, id, { role: "user" })).status).toBe(200);
    expect(await roleOf(builds.app, user)).toBe("user");
  });

  it("an admin (the first user or one made admin on the server) may act on anyone's build", async () => {
    const first = await start(stranger.authorization, ["base_mod", "slow_install"]);
    expect((await cancel(first.build_id, madeAdmin.authorization)).status).toBe(200);
    const second = await start(stranger.authorization, ["base_mod", "slow_install"]);
    expect((await cancel(second.build_id, admin.authorization)).status).toBe(200);
  });

  it("public reads show the creator's display name, never the email", async () => {
    const build = await start(owner.authorization, ["base_mod", "slow_install"]);
    const single = await (await builds.get(`/builds/${build.build_id}`)).text();
    const list = await (await builds.get("/builds?limit=100")).text();
    expect(JSON.parse(single).created_by).toBe("owner.name");
    for (const body of [single, list]) expect(body).not.toMatch(/@example\.com/);
    await cancel(build.build_id, owner.authorization);
  });
});

describe("REGISTRATION=closed", () => {
  let app: AppServer;
  beforeAll(async () => {
    app = await startAppServer({ REGISTRATION: "closed", ADMIN_EMAILS: "listed@example.com" });
  });
  afterAll(() => app?.stop());

  const register = (email: string, headers: Record<string, string> = {}) =>
    app.fetch("/users/", {
      method: "POST",
      headers: { ...headers, "Content-Type": "application/json" },
      body: JSON.stringify({ email, password: "correct horse battery", display_name: "Ana María" }),
    });

  it("lets the first user register (as admin), then only admins create users", async () => {
    const first = await registerAndGetToken(app, "root@example.com");
    expect((await (await app.fetch("/users/me", { headers: first.authorization })).json()).role).toBe("admin");

    const anonymous = await register("anon@example.com");
    expect(anonymous.status).toBe(401);
    expect((await anonymous.json()).detail).toMatch(/Registration is closed/);

    const created = await register("ana@example.com", first.authorization);
    expect(created.status).toBe(201);
    expect(await created.json()).toMatchObject({ email: "ana@example.com", role: "user", display_name: "Ana María" });

    const tokenResponse = await app.fetch("/users/token", {
      method: "POST",
      body: new URLSearchParams({ username: "ana@example.com", password: "correct horse battery" }),
    });
    const { access_token } = await tokenResponse.json();
    const byUser = await register("friend@example.com", { Authorization: `Bearer ${access_token}` });
    expect(byUser.status).toBe(403);

    // ADMIN_EMAILS applies here: only an admin could have created the listed account.
    const listed = await app.fetch("/users/", {
      method: "POST",
      headers: { ...first.authorization, "Content-Type": "application/json" },
      body: JSON.stringify({ email: "Listed@Example.com", password: "correct horse battery" }),
    });
    expect(listed.status).toBe(201);
    expect((await listed.json()).role).toBe("admin");
  });
});
