import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  deliverGitHub,
  githubPush,
  listAllBuilds,
  makeRemote,
  pushCommit,
  type Remote,
  waitFor,
} from "../support/auto-builds";
import {
  type BuildJson,
  type BuildsApp,
  fixtureConfig,
  makeBuildsFixture,
  startBuildsApp,
  tearDownBuilds,
} from "../support/builds";

// One build at a time and one place in the queue: notices past the bound must wait, not be dropped.
const SECRET = crypto.randomBytes(16).toString("hex");
let builds: BuildsApp;
let hooked: Remote;
beforeAll(async () => {
  const fixture = makeBuildsFixture((partial) =>
    fixtureConfig(partial, {
      maxConcurrent: 1,
      maxQueued: 1,
      extraRepositories: `
  - alias: hooked
    url: ./hooked.git
    modules_path: addons
    module_manifest: manifest.json
    webhook_secret: "${SECRET}"
    auto_build: { branches: ["**"], modules: [base_mod] }
`,
    }),
  );
  hooked = makeRemote(fixture, "hooked");
  builds = await startBuildsApp(fixture);
});
afterAll(() => tearDownBuilds(builds));

const automaticCommits = async () =>
  (await listAllBuilds(builds))
    .filter((build) => build.trigger === "webhook")
    .map((build) => (build.repositories as { commit_sha: string }[])[0].commit_sha)
    .sort();

describe("automatic builds and the queue bound", () => {
  it("remembers notices while the queue is full (the newest commit per branch) and builds them when there is room", async () => {
    const busy = (await (
      await builds.post({ repository: "demo", ref: "main", modules: ["slow_install"] })
    ).json()) as BuildJson;
    await builds.waitForStatus(busy.build_id, ["installing"]);
    const waiting = (await (
      await builds.post({ repository: "demo", ref: "main", modules: ["base_mod"] })
    ).json()) as BuildJson;
    expect(waiting.status).toBe("queued");

    const replaced = pushCommit(hooked, "main", "first push, replaced before it is built");
    const first = await deliverGitHub(builds, "hooked", githubPush("main", replaced), SECRET);
    expect(first.status).toBe(202);
    expect((await first.json()).result).toBe("pending");
    const newest = pushCommit(hooked, "main", "second push");
    const second = await deliverGitHub(builds, "hooked", githubPush("main", newest), SECRET);
    expect(await second.json()).toMatchObject({ result: "pending", commit_sha: newest });
    const feature = pushCommit(hooked, "topic/q", "another branch");
    expect((await (await deliverGitHub(builds, "hooked", githubPush("topic/q", feature), SECRET)).json()).result).toBe(
      "pending",
    );

    // The bound still holds for everyone.
    expect((await builds.post({ repository: "demo", ref: "main", modules: ["base_mod"] })).status).toBe(503);
    expect(await automaticCommits()).toEqual([]);

    // Room for one: the oldest remembered notice (main, at its newest commit) is queued.
    await builds.app.fetch(`/builds/${waiting.build_id}/cancel`, { method: "POST", headers: builds.authorization });
    expect(
      await waitFor("main's notice to be built", async () =>
        (await automaticCommits()).length === 1 ? automaticCommits() : null,
      ),
    ).toEqual([newest]);

    // The executor takes main's build; the queue has room again for topic/q.
    await builds.app.fetch(`/builds/${busy.build_id}/cancel`, { method: "POST", headers: builds.authorization });
    const built = await waitFor("topic/q's notice to be built", async () =>
      (await automaticCommits()).length === 2 ? automaticCommits() : null,
    );
    expect(built).toEqual([newest, feature].sort());
    expect(built).not.toContain(replaced);
  });
});
