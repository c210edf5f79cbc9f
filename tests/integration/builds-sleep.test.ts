import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type BuildJson,
  type BuildsApp,
  fixtureConfig,
  makeBuildsFixture,
  startBuildsApp,
  tearDownBuilds,
} from "../support/builds";
import { registerAndGetToken } from "../support/users";

// POST /builds/{id}/sleep and /wake with the process driver: the runtime's processes end and the
// workspace stays; a wake starts it again on the same port and waits for its healthcheck. max_awake_builds: 2.
let builds: BuildsApp;
let stranger: Record<string, string>;

beforeAll(async () => {
  const fixture = makeBuildsFixture(
    (partial) => `${fixtureConfig(partial, { maxConcurrent: 3 })}\nmax_awake_builds: 2\n`,
  );
  builds = await startBuildsApp(fixture);
  stranger = (await registerAndGetToken(builds.app)).authorization;
});
afterAll(() => tearDownBuilds(builds));

const act = (buildId: string, action: "sleep" | "wake" | "extend", headers = builds.authorization, body?: unknown) =>
  builds.app.fetch(`/builds/${buildId}/${action}`, {
    method: "POST",
    headers: { ...headers, ...(body ? { "Content-Type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });

async function startRunning(): Promise<BuildJson> {
  const response = await builds.post({ repository: "demo", modules: ["base_mod"] });
  expect(response.status).toBe(202);
  const build = await builds.waitForStatus(((await response.json()) as BuildJson).build_id, ["running", "failed"]);
  expect(build.status).toBe("running");
  return build;
}

async function answers(url: string): Promise<boolean> {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(3_000) })).ok;
  } catch {
    return false;
  }
}

async function statusOf(buildId: string): Promise<string> {
  return ((await (await builds.get(`/builds/${buildId}`)).json()) as BuildJson).status;
}

describe("POST /builds/{build_id}/sleep and /wake (process driver)", () => {
  let build: BuildJson;

  it("sleep ends the runtime: the port closes, the build is sleeping and keeps its expiry", async () => {
    build = await startRunning();
    const preview = build.preview_url as string;
    expect(await answers(preview)).toBe(true);
    const response = await act(build.build_id, "sleep");
    expect(response.status).toBe(200);
    const sleeping = (await response.json()) as BuildJson;
    expect(sleeping).toMatchObject({ status: "sleeping", preview_url: null, expires_at: build.expires_at });
    expect(await answers(preview)).toBe(false);
    // Asking again answers the build as it is.
    expect((await act(build.build_id, "sleep")).status).toBe(200);
  });

  it("only the build's creator or an admin may put it to sleep or wake it; without credentials 401", async () => {
    expect((await act(build.build_id, "wake", stranger)).status).toBe(403);
    expect((await act(build.build_id, "wake", {})).status).toBe(401);
    expect(await statusOf(build.build_id)).toBe("sleeping");
  });

  it("wake starts the runtime again on the same port and answers once it is healthy; the time to live kept counting", async () => {
    const response = await act(build.build_id, "wake");
    expect(response.status).toBe(200);
    const awake = (await response.json()) as BuildJson;
    expect(awake).toMatchObject({ status: "running", preview_url: build.preview_url, expires_at: build.expires_at });
    expect(await answers(build.preview_url as string)).toBe(true);
    expect((await act(build.build_id, "wake")).status).toBe(200);
  });

  it("a build that is not running cannot sleep (409)", async () => {
    const response = await builds.post({ repository: "demo", modules: ["broken"] });
    const failed = await builds.waitForStatus(((await response.json()) as BuildJson).build_id, ["failed", "running"]);
    expect(failed.status).toBe("failed");
    const refused = await act(failed.build_id, "sleep");
    expect(refused.status).toBe(409);
    expect(refused.headers.get("content-type")).toBe("application/problem+json");
    expect((await act(failed.build_id, "wake")).status).toBe(409);
  });

  it("max_awake_builds: one build more than that puts to sleep the one awake longest without a wake or an extension", async () => {
    // `build` woke last; a second and a third build start: with three awake, `build` is not the oldest any more.
    const second = await startRunning();
    expect(await statusOf(build.build_id)).toBe("running");
    const third = await startRunning();
    await waitUntil(async () => (await statusOf(build.build_id)) === "sleeping");
    expect(await statusOf(second.build_id)).toBe("running");
    expect(await statusOf(third.build_id)).toBe("running");
    // An extension counts as use: `second` becomes the newest, so waking `build` puts `third` to sleep.
    expect((await act(second.build_id, "extend", builds.authorization, { ttl_seconds: 3600 })).status).toBe(200);
    expect((await act(build.build_id, "wake")).status).toBe(200);
    await waitUntil(async () => (await statusOf(third.build_id)) === "sleeping");
    expect(await statusOf(build.build_id)).toBe("running");
    expect(await statusOf(second.build_id)).toBe("running");
    expect(await answers(third.preview_url as string)).toBe(false);
  });
});

async function waitUntil(probe: () => Promise<boolean>, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
