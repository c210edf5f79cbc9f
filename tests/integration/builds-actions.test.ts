import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type BuildJson,
  type BuildsApp,
  fixtureConfig,
  makeBuildsFixture,
  startBuildsApp,
  tearDownBuilds,
} from "../support/builds";
import { queryDatabase, testDatabase } from "../support/database";
import { registerAndGetToken } from "../support/users";

// The fixture's TTL bounds: 60 s to one day. The first user registered (the fixture's) is an admin.
let builds: BuildsApp;
let other: Record<string, string>;
let otherEmail: string;
beforeAll(async () => {
  builds = await startBuildsApp(makeBuildsFixture((fixture) => fixtureConfig(fixture, { maxConcurrent: 3 })));
  const registered = await registerAndGetToken(builds.app);
  other = registered.authorization;
  otherEmail = registered.email;
});
afterAll(() => tearDownBuilds(builds));

const action = (buildId: string, name: "rebuild" | "extend", headers: Record<string, string>, body?: unknown) =>
  builds.app.fetch(`/builds/${buildId}/${name}`, {
    method: "POST",
    headers: { ...headers, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

async function startRunning(body: unknown, headers = builds.authorization): Promise<BuildJson> {
  const response = await builds.app.fetch("/builds", {
    method: "POST",
    headers: { ...headers, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(202);
  return builds.waitForStatus(((await response.json()) as BuildJson).build_id, ["running"]);
}

function commitOnFeature(repository: string, subject: string): string {
  const run = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=Rebuilder", "-c", "user.email=r@example.com", ...args], {
      cwd: repository,
      encoding: "utf8",
    }).trim();
  run("checkout", "--quiet", "feature");
  fs.writeFileSync(path.join(repository, "CHANGELOG"), `${subject}\n`);
  run("add", ".");
  run("commit", "--quiet", "-m", subject);
  const sha = run("rev-parse", "HEAD");
  run("checkout", "--quiet", "main");
  return sha;
}

describe("POST /builds/{build_id}/extend", () => {
  let running: BuildJson;
  let parallel: BuildJson;
  beforeAll(async () => {
    running = await startRunning({ repository: "demo", ref: "main", modules: ["base_mod"], ttl_seconds: 600 });
    parallel = await startRunning({ repository: "demo", ref: "main", modules: ["base_mod"], ttl_seconds: 600 });
  });

  it("adds ttl_seconds to the time left: extending never shortens a build's life", async () => {
    const before = (await (await builds.get(`/builds/${running.build_id}`)).json()) as BuildJson;
    const expiry = (build: BuildJson) => new Date(build.expires_at as string).getTime();
    const runningSince = new Date(before.finished_at as string).getTime();
    // About ten minutes left (the build was started with 600 s); an hour more leaves about 70 minutes.
    const response = await action(running.build_id, "extend", builds.authorization, { ttl_seconds: 3600 });
    expect(response.status).toBe(200);
    const extended = (await response.json()) as BuildJson;
    expect(expiry(extended)).toBe(expiry(before) + 3600_000);
    // ttl_seconds is the build's whole life, from reaching running to the new expiry.
    expect(extended.ttl_seconds).toBe(Math.round((expiry(extended) - runningSince) / 1000));
    expect(extended.status).toBe("running");

    // A minute more: still later than before, by that minute, never "a minute from now".
    const again = (await (
      await action(running.build_id, "extend", builds.authorization, { ttl_seconds: 60 })
    ).json()) as BuildJson;
    expect(expiry(again)).toBe(expiry(extended) + 60_000);
  });

  it("caps the sum at ttl.max_seconds from now, and keeps a longer life it already has", async () => {
    const before = Date.now();
    const capped = (await (
      await action(running.build_id, "extend", builds.authorization, { ttl_seconds: 86400 })
    ).json()) as BuildJson;
    const cappedAt = new Date(capped.expires_at as string).getTime();
    expect(cappedAt).toBeGreaterThanOrEqual(before + 86400_000);
    expect(cappedAt).toBeLessThanOrEqual(Date.now() + 86400_000);
    // Already at the cap: one more minute changes nothing, and takes nothing away.
    const more = (await (
      await action(running.build_id, "extend", builds.authorization, { ttl_seconds: 60 })
    ).json()) as BuildJson;
    expect(new Date(more.expires_at as string).getTime()).toBeGreaterThanOrEqual(cappedAt);
  });

  it("counts every extension when two arrive at once", async () => {
    const before = (await (await builds.get(`/builds/${parallel.build_id}`)).json()) as BuildJson;
    const answers = await Promise.all(
      [600, 900].map((seconds) => action(parallel.build_id, "extend", builds.authorization, { ttl_seconds: seconds })),
    );
    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    const after = (await (await builds.get(`/builds/${parallel.build_id}`)).json()) as BuildJson;
    expect(new Date(after.expires_at as string).getTime()).toBe(
      new Date(before.expires_at as string).getTime() + 1500_000,
    );
  });

  it("refuses more than the configured maximum (400), a malformed body (400), no token (401), another user (403)", async () => {
    const tooLong = await action(running.build_id, "extend", builds.authorization, { ttl_seconds: 86401 });
    expect(tooLong.status).toBe(400);
    expect((await tooLong.json()).errors).toEqual([{ field: "body.ttl_seconds", message: "must be at most 86400" }]);
    const malformed = await action(running.build_id, "extend", builds.authorization, { ttl_seconds: "soon" });
    expect(malformed.status).toBe(400);
    expect((await malformed.json()).errors[0].field).toBe("body.ttl_seconds");
    expect((await action(running.build_id, "extend", {}, { ttl_seconds: 600 })).status).toBe(401);
    const forbidden = await action(running.build_id, "extend", other, { ttl_seconds: 600 });
    expect(forbidden.status).toBe(403);
    expect((await action("0000000000000000", "extend", builds.authorization, { ttl_seconds: 600 })).status).toBe(404);
  });

  it("GET tells the requester whether they may change the build: its creator and admins, not another user", async () => {
    const viewed = async (headers: Record<string, string>) =>
      (
        (await (await builds.app.fetch(`/builds/${running.build_id}`, { headers })).json()) as BuildJson & {
          viewer_can_change?: boolean;
        }
      ).viewer_can_change;
    expect(await viewed(builds.authorization)).toBe(true);
    expect(await viewed(other)).toBe(false);
    expect(await viewed({})).toBe(false);
    // A public read: credentials that no longer hold count as none rather than failing it.
    const forged = await builds.app.fetch(`/builds/${running.build_id}`, {
      headers: { Authorization: "Bearer forged" },
    });
    expect(forged.status).toBe(200);
    expect(((await forged.json()) as { viewer_can_change: boolean }).viewer_can_change).toBe(false);
    // The other user's own build is theirs to change, and the answer to starting it says so.
    const theirs = await builds.app.fetch("/builds", {
      method: "POST",
      headers: { ...other, "Content-Type": "application/json" },
      body: JSON.stringify({ repository: "demo", ref: "main", modules: ["base_mod"] }),
    });
    expect(((await theirs.json()) as { viewer_can_change: boolean }).viewer_can_change).toBe(true);
  });

  it("is 409 for a build that is not running", async () => {
    await builds.app.fetch(`/builds/${running.build_id}`, { method: "DELETE", headers: builds.authorization });
    const response = await action(running.build_id, "extend", builds.authorization, { ttl_seconds: 600 });
    expect(response.status).toBe(409);
    expect((await response.json()).detail).toMatch(/not running/);
  });
});

describe("POST /builds/{build_id}/rebuild", () => {
  it("builds the same repositories and modules with refs resolved again; the new build is the requester's", async () => {
    const original = await startRunning({
      repositories: [{ repository: "demo", ref: "feature" }],
      modules: ["feature_mod", "base_mod"],
      ttl_seconds: 900,
    });
    const newer = commitOnFeature(builds.fixture.repository, "feature: a changelog");
    expect(newer).not.toBe((original.repositories as { commit_sha: string }[])[0].commit_sha);
    const response = await action(original.build_id, "rebuild", other);
    expect(response.status).toBe(202);
    const rebuilt = (await response.json()) as BuildJson;
    expect(response.headers.get("location")).toBe(`/builds/${rebuilt.build_id}`);
    expect(rebuilt.build_id).not.toBe(original.build_id);
    expect(rebuilt).toMatchObject({
      trigger: "rebuild",
      // Display names (the email's local part), never the email.
      triggered_by: otherEmail.split("@")[0],
      created_by: otherEmail.split("@")[0],
      modules: ["feature_mod", "base_mod"],
      ttl_seconds: 900,
      expires_at: null,
      repositories: [
        {
          repository: "demo",
          ref: "feature",
          commit_sha: newer,
          commit_subject: "feature: a changelog",
          commit_author: "Rebuilder",
        },
      ],
    });
    expect((await builds.waitForStatus(rebuilt.build_id, ["running", "failed"])).status).toBe("running");
    // The original is untouched, and the new build is its requester's to act on.
    expect((await (await builds.get(`/builds/${original.build_id}`)).json()).status).toBe("running");
    expect((await action(rebuilt.build_id, "extend", other, { ttl_seconds: 600 })).status).toBe(200);
  });

  it("needs a signed-in user and a build that exists", async () => {
    const list = (await (await builds.get("/builds")).json()).builds as BuildJson[];
    expect((await action(list[0].build_id, "rebuild", {})).status).toBe(401);
    expect((await action("0000000000000000", "rebuild", builds.authorization)).status).toBe(404);
  });
});

describe("retention_days", () => {
  it("the reaper purges rows and log folders of builds that ended longer ago, and keeps recent ones", async () => {
    const post = async (modules: string[]) =>
      ((await (await builds.post({ repository: "demo", ref: "main", modules })).json()) as BuildJson).build_id;
    const oldFailed = await post(["broken"]);
    const recentFailed = await post(["broken"]);
    const oldDestroyed = (await startRunning({ repository: "demo", ref: "main", modules: ["base_mod"] })).build_id;
    await builds.app.fetch(`/builds/${oldDestroyed}`, { method: "DELETE", headers: builds.authorization });
    for (const id of [oldFailed, recentFailed])
      expect((await builds.waitForStatus(id, ["failed", "running"])).status).toBe("failed");
    expect((await builds.waitForStatus(oldDestroyed, ["destroyed"])).status).toBe("destroyed");
    const folder = (id: string) => path.join(builds.fixture.buildsRoot, id);
    for (const id of [oldFailed, recentFailed, oldDestroyed])
      expect(fs.existsSync(path.join(folder(id), "logs"))).toBe(true);

    // Fifteen days pass for two of them (the default retention is 14 days).
    const then = Date.now() - 15 * 24 * 3600 * 1000;
    // On SQLite, written in the form the app itself stored (Prisma writes milliseconds, the raw queries text).
    const [current] = queryDatabase<{ endedAt: unknown }>(
      builds.app,
      {
        sqlite: `SELECT "endedAt" FROM "Build" WHERE "id" = ?`,
        postgresql: `SELECT "endedAt" FROM "Build" WHERE "id" = :'params'::json ->> 0`,
      },
      [oldFailed],
    );
    const value = typeof current.endedAt === "number" ? then : new Date(then).toISOString().replace("Z", "+00:00");
    const stored = testDatabase() === "postgresql" ? new Date(then).toISOString() : value;
    for (const id of [oldFailed, oldDestroyed]) {
      const at = `CAST(:'params'::json ->> 0 AS TIMESTAMPTZ) AT TIME ZONE 'UTC'`;
      queryDatabase(
        builds.app,
        {
          sqlite: `UPDATE "Build" SET "endedAt" = ?, "createdAt" = ?, "finishedAt" = ? WHERE "id" = ?`,
          postgresql: `UPDATE "Build" SET "endedAt" = ${at}, "createdAt" = ${at}, "finishedAt" = ${at} WHERE "id" = :'params'::json ->> 3`,
        },
        [stored, stored, stored, id],
      );
    }
    for (const id of [oldFailed, oldDestroyed]) {
      const deadline = Date.now() + 10_000;
      // The row goes first, then the folder (lib/builds/queue/retention.ts): wait for both.
      while (
        ((await builds.get(`/builds/${id}`)).status !== 404 || fs.existsSync(folder(id))) &&
        Date.now() < deadline
      ) {
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect((await builds.get(`/builds/${id}`)).status).toBe(404);
      expect(fs.existsSync(folder(id))).toBe(false);
    }
    expect((await builds.get(`/builds/${recentFailed}`)).status).toBe(200);
    expect(fs.existsSync(path.join(folder(recentFailed), "logs", "test.log"))).toBe(true);
  });
});
