import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deliverGitHub, githubPush, makeRemote, pushCommit, type Remote } from "../support/auto-builds";
import {
  type BuildJson,
  type BuildsApp,
  connectBuildsApp,
  fixtureConfig,
  makeBuildsFixture,
  startBuildsApp,
  tearDownBuilds,
} from "../support/builds";
import { registerAndGetToken } from "../support/users";

// One ordinary user must not be able to hold every preview port, so that another user's build fails for want of
// one. Here: at most 3 live and 2 queued builds per user.
let admin: BuildsApp;
let first: BuildsApp;
let second: BuildsApp;
let hooked: Remote;
const SECRET = crypto.randomBytes(16).toString("hex");

beforeAll(async () => {
  const fixture = makeBuildsFixture((partial) => {
    const config = fixtureConfig(partial, {
      maxConcurrent: 2,
      extraRepositories: `
  - alias: hooked
    url: ./hooked.git
    modules_path: addons
    module_manifest: manifest.json
    webhook_secret: "${SECRET}"
    auto_build: { branches: ["**"], modules: [base_mod] }
`,
    });
    return `${config}\nlimits: { live_per_user: 3, queued_per_user: 2 }\n`;
  });
  hooked = makeRemote(fixture, "hooked");
  admin = await startBuildsApp(fixture);
  first = connectBuildsApp(admin.app, fixture, (await registerAndGetToken(admin.app)).authorization);
  second = connectBuildsApp(admin.app, fixture, (await registerAndGetToken(admin.app)).authorization);
});
afterAll(() => tearDownBuilds(admin));

// Each install waits a minute: the builds stay live for the whole file.
const slow = { repository: "demo", ref: "main", modules: ["slow_install"] };

async function start(as: BuildsApp): Promise<BuildJson> {
  const response = await as.post(slow);
  expect(response.status).toBe(202);
  return (await response.json()) as BuildJson;
}

async function expectLimit(response: Response, detail: RegExp) {
  expect(response.status).toBe(429);
  expect(response.headers.get("content-type")).toBe("application/problem+json");
  expect(Number(response.headers.get("retry-after"))).toBeGreaterThan(0);
  expect((await response.json()).detail).toMatch(detail);
}

describe("POST /builds: per-user limits", () => {
  let mine: BuildJson[];

  it("a user's fourth live build is refused with 429 naming limits.live_per_user and the numbers", async () => {
    mine = [await start(first), await start(first)];
    for (const build of mine) await first.waitForStatus(build.build_id, ["installing"]);
    mine.push(await start(first));
    expect(mine[2].status).toBe("queued");
    await expectLimit(
      await first.post(slow),
      /You have 3 live builds \(queued, in progress or running\), and limits\.live_per_user allows 3/,
    );
  });

  it("a user's third queued build is refused with 429 naming limits.queued_per_user, while other users still build", async () => {
    // Both slots are taken by the first user: these wait.
    await start(second);
    await start(second);
    await expectLimit(
      await second.post(slow),
      /You have 2 builds waiting in the queue, and limits\.queued_per_user allows 2/,
    );
  });

  it("a rebuild counts like a new build", async () => {
    await expectLimit(
      await first.app.fetch(`/builds/${mine[0].build_id}/rebuild`, { method: "POST", headers: first.authorization }),
      /limits\.live_per_user allows 3/,
    );
  });

  it("admins are counted apart: without admin limits configured, they are not refused", async () => {
    for (let index = 0; index < 4; index++) await start(admin);
  });

  it("automatic builds are counted apart: a push is built while users are at their limits, and takes no user's place", async () => {
    const sha = pushCommit(hooked, "main", "a push while every user is at a limit");
    const response = await deliverGitHub(admin, "hooked", githubPush("main", sha), SECRET);
    expect(response.status).toBe(202);
    const body = await response.json();
    expect(body).toMatchObject({ result: "started", commit_sha: sha });
    expect(body.build).toMatchObject({ trigger: "webhook", created_by: "build service" });
    // Neither user's count grew: still exactly at their limits, not past them.
    await expectLimit(await first.post(slow), /You have 3 live builds/);
    await expectLimit(await second.post(slow), /You have 2 builds waiting in the queue/);
  });

  it("a canceled build gives its place back", async () => {
    const canceled = await first.app.fetch(`/builds/${mine[2].build_id}/cancel`, {
      method: "POST",
      headers: first.authorization,
    });
    expect(canceled.status).toBe(200);
    await start(first);
  });
});
