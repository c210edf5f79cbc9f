import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  deliverGitHub,
  git,
  githubPush,
  hmacHex,
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

// Two followed repositories, each a bare repository with a working clone to push from: `hooked` takes signed
// webhooks (its secret from an environment variable), `watched` is polled every second.
const SECRET = `s3cret-${crypto.randomUUID()}`;
let builds: BuildsApp;
let hooked: Remote;
let watched: Remote;

beforeAll(async () => {
  const fixture = makeBuildsFixture((partial) =>
    fixtureConfig(partial, {
      maxConcurrent: 3,
      extraRepositories: `
  - alias: hooked
    url: ./hooked.git
    modules_path: addons
    module_manifest: manifest.json
    webhook_secret_env: AUTO_TEST_HOOK_SECRET
    auto_build: { branches: [main, "topic/*"], modules: [base_mod], ttl_seconds: 600 }
  - alias: watched
    url: ./watched.git
    modules_path: addons
    module_manifest: manifest.json
    watch_interval_seconds: 1
    auto_build: { branches: ["poll/*"], modules: all }
`,
    }),
  );
  hooked = makeRemote(fixture, "hooked");
  watched = makeRemote(fixture, "watched");
  builds = await startBuildsApp(fixture, { AUTO_TEST_HOOK_SECRET: SECRET });
});
afterAll(() => tearDownBuilds(builds));

const automatic = async (alias: string) =>
  (await listAllBuilds(builds)).filter(
    (build) => build.trigger !== "manual" && (build.repositories as { repository: string }[])[0].repository === alias,
  );

describe("POST /hooks/{alias}", () => {
  let first: BuildJson;
  let firstSha: string;

  it("a signed GitHub push to a followed branch starts exactly one build, owned by the service", async () => {
    firstSha = pushCommit(hooked, "main", "invoices: print the due date");
    const response = await deliverGitHub(builds, "hooked", githubPush("main", firstSha), SECRET);
    expect(response.status).toBe(202);
    const body = await response.json();
    expect(body).toMatchObject({ result: "started", repository: "hooked", branch: "main", commit_sha: firstSha });
    first = body.build;
    expect(first).toMatchObject({
      trigger: "webhook",
      triggered_by: "anaperez",
      created_by: "build service",
      modules: ["base_mod"],
      ttl_seconds: 600,
      expires_at: null,
      repositories: [
        {
          repository: "hooked",
          ref: "main",
          commit_sha: firstSha,
          commit_subject: "invoices: print the due date",
          commit_author: "Ana Pérez",
        },
      ],
    });
    expect(body.build_ids).toEqual([first.build_id]);
    expect((await automatic("hooked")).map((build) => build.build_id)).toEqual([first.build_id]);
    const running = await builds.waitForStatus(first.build_id, ["running", "failed"]);
    expect(running.status).toBe("running");
    expect(new Date(running.expires_at as string).getTime() - new Date(running.finished_at as string).getTime()).toBe(
      600_000,
    );
  });

  it("the same delivery twice starts one build", async () => {
    // The same signed body is the same delivery, whatever its delivery id: answered, not acted on again.
    const again = await deliverGitHub(builds, "hooked", githubPush("main", firstSha), SECRET);
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ result: "already_processed", build: null, build_ids: [] });
    expect(await automatic("hooked")).toHaveLength(1);
  });

  it("a bad or missing signature is 401 and starts nothing", async () => {
    const sha = pushCommit(hooked, "main", "an unsigned push");
    const payload = githubPush("main", sha);
    const wrong = await deliverGitHub(builds, "hooked", payload, "not-the-secret");
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("content-type")).toBe("application/problem+json");
    expect((await wrong.json()).detail).toMatch(/X-Hub-Signature-256/);
    expect((await deliverGitHub(builds, "hooked", payload, null)).status).toBe(401);
    // Signed over other bytes than those sent: the body was changed on the way.
    const tampered = await builds.app.fetch("/hooks/hooked", {
      method: "POST",
      headers: {
        "X-GitHub-Event": "push",
        "X-Hub-Signature-256": `sha256=${hmacHex(SECRET, JSON.stringify(payload))}`,
      },
      body: JSON.stringify({ ...payload, ref: "refs/heads/topic/x" }),
    });
    expect(tampered.status).toBe(401);
    const gitlab = await builds.app.fetch("/hooks/hooked", {
      method: "POST",
      headers: { "X-Gitlab-Event": "Push Hook", "X-Gitlab-Token": `${SECRET}x` },
      body: JSON.stringify(payload),
    });
    expect(gitlab.status).toBe(401);
    expect(await automatic("hooked")).toHaveLength(1);
  });

  it("answers a ping 200, other events and unfollowed branches 200 with nothing to do", async () => {
    const ping = await deliverGitHub(
      builds,
      "hooked",
      { zen: "Keep it logically awesome.", hook_id: 1 },
      SECRET,
      "ping",
    );
    expect(ping.status).toBe(200);
    expect((await ping.json()).result).toBe("pong");
    const issue = await deliverGitHub(builds, "hooked", { action: "opened" }, SECRET, "issues");
    expect(issue.status).toBe(200);
    expect((await issue.json()).result).toBe("nothing_to_do");
    const other = pushCommit(hooked, "experiment", "not followed");
    const unfollowed = await deliverGitHub(builds, "hooked", githubPush("experiment", other), SECRET);
    expect(unfollowed.status).toBe(200);
    expect(await unfollowed.json()).toMatchObject({ result: "nothing_to_do", branch: "experiment" });
    const tag = await deliverGitHub(builds, "hooked", { ...githubPush("main", other), ref: "refs/tags/v1" }, SECRET);
    expect((await tag.json()).result).toBe("nothing_to_do");
    expect(await automatic("hooked")).toHaveLength(1);
  });

  it("answers 400 naming the field for a signed payload it cannot read, 404 for an unknown or unhooked repository", async () => {
    const garbage = await deliverGitHub(builds, "hooked", "{not json", SECRET);
    expect(garbage.status).toBe(400);
    expect((await garbage.json()).errors).toEqual([{ field: "body", message: "not valid JSON" }]);
    const noAfter = await deliverGitHub(builds, "hooked", { ref: "refs/heads/main" }, SECRET);
    expect(noAfter.status).toBe(400);
    expect((await noAfter.json()).errors[0].field).toBe("body.after");
    const badBranch = await deliverGitHub(builds, "hooked", githubPush("main..x", firstSha), SECRET);
    expect(badBranch.status).toBe(400);
    expect((await badBranch.json()).errors[0].field).toBe("body.ref");
    expect((await deliverGitHub(builds, "nope", githubPush("main", firstSha), SECRET)).status).toBe(404);
    expect((await deliverGitHub(builds, "demo", githubPush("main", firstSha), SECRET)).status).toBe(404);
  });

  it("accepts GitLab's token and Gitea's signature", async () => {
    const head = git(hooked.bare, "rev-parse", "refs/heads/main");
    const gitlabBody = JSON.stringify({
      object_kind: "push",
      ref: "refs/heads/main",
      after: head,
      user_username: "gl-user",
    });
    const gitlab = await builds.app.fetch("/hooks/hooked", {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Gitlab-Event": "Push Hook", "X-Gitlab-Token": SECRET },
      body: gitlabBody,
    });
    // The head (the unsigned push above) is new: GitLab's notice builds it.
    expect(gitlab.status).toBe(202);
    const gitlabBuild = (await gitlab.json()).build as BuildJson;
    expect(gitlabBuild).toMatchObject({
      trigger: "webhook",
      triggered_by: "gl-user",
      repositories: [{ commit_sha: head }],
    });
    const giteaBody = JSON.stringify({ ref: "refs/heads/main", after: head, pusher: { login: "gt-user" } });
    const gitea = await builds.app.fetch("/hooks/hooked", {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        "X-Gitea-Event": "push",
        "X-GitHub-Event": "push",
        "X-Gitea-Signature": hmacHex(SECRET, giteaBody),
      },
      body: giteaBody,
    });
    expect(gitea.status).toBe(200);
    expect(await gitea.json()).toMatchObject({ result: "nothing_to_do", build_ids: [gitlabBuild.build_id] });
    await builds.waitForStatus(gitlabBuild.build_id, ["running"]);
  });

  it("a newer push destroys the older automatic build of the branch once the newer one runs", async () => {
    const older = (await automatic("hooked")).filter((build) => build.status === "running");
    expect(older.length).toBeGreaterThanOrEqual(1);
    // The new commit's install stage takes two seconds: the older preview must live through it.
    const install = fs.readFileSync(path.join(hooked.work, "stages", "install.mjs"), "utf8");
    const sha = pushCommit(hooked, "main", "a slower install", {
      "stages/install.mjs": `await new Promise((resolve) => setTimeout(resolve, 2000));\n${install}`,
    });
    const response = await deliverGitHub(builds, "hooked", githubPush("main", sha), SECRET);
    expect(response.status).toBe(202);
    const newer = (await response.json()).build as BuildJson;
    await builds.waitForStatus(newer.build_id, ["installing"]);
    for (const build of older)
      expect((await (await builds.get(`/builds/${build.build_id}`)).json()).status).toBe("running");
    const running = await builds.waitForStatus(newer.build_id, ["running", "failed"]);
    expect(running.status).toBe("running");
    for (const build of older) {
      const destroyed = await builds.waitForStatus(build.build_id, ["destroyed"], 15_000);
      expect(destroyed.preview_url).toBeNull();
    }
    // The newer build is the branch's one live preview.
    expect((await fetch(running.preview_url!)).status).toBe(200);
  });

  it("never touches a manual build of the same branch", async () => {
    const manual = (await (
      await builds.post({ repository: "hooked", ref: "main", modules: ["base_mod"] })
    ).json()) as BuildJson;
    expect(manual.trigger).toBe("manual");
    await builds.waitForStatus(manual.build_id, ["running"]);
    const sha = pushCommit(hooked, "main", "after the manual build");
    const newer = (await (await deliverGitHub(builds, "hooked", githubPush("main", sha), SECRET)).json())
      .build as BuildJson;
    await builds.waitForStatus(newer.build_id, ["running"]);
    await waitFor("the older automatic build to go", async () =>
      (await automatic("hooked")).every((build) => build.build_id === newer.build_id || build.status === "destroyed"),
    );
    expect((await (await builds.get(`/builds/${manual.build_id}`)).json()).status).toBe("running");
  });

  it("deleting a followed branch destroys its automatic builds", async () => {
    const sha = pushCommit(hooked, "topic/gone", "a short-lived feature");
    const started = (await (await deliverGitHub(builds, "hooked", githubPush("topic/gone", sha), SECRET)).json())
      .build as BuildJson;
    await builds.waitForStatus(started.build_id, ["running"]);
    git(hooked.work, "push", "--quiet", "origin", "--delete", "topic/gone");
    const response = await deliverGitHub(
      builds,
      "hooked",
      githubPush("topic/gone", sha, { before: sha, deleted: true }),
      SECRET,
    );
    expect(response.status).toBe(202);
    expect(await response.json()).toMatchObject({
      result: "destroying",
      branch: "topic/gone",
      build_ids: [started.build_id],
    });
    expect((await builds.waitForStatus(started.build_id, ["destroyed"], 15_000)).preview_url).toBeNull();
    // The other branches' builds stay.
    expect((await automatic("hooked")).filter((build) => build.status === "running")).toHaveLength(1);
  });
});

describe("watch_interval_seconds", () => {
  it("polling builds a commit pushed without any webhook, once, and destroys it when the branch is deleted", async () => {
    const sha = pushCommit(watched, "poll/one", "noticed by polling");
    const build = await waitFor("a build of the polled commit", async () =>
      (await automatic("watched")).find(
        (candidate) => (candidate.repositories as { commit_sha: string }[])[0].commit_sha === sha,
      ),
    );
    expect(build).toMatchObject({ trigger: "poll", triggered_by: null, created_by: "build service" });
    expect(build.repositories).toMatchObject([
      { repository: "watched", ref: "poll/one", commit_subject: "noticed by polling" },
    ]);
    // `all`: every module found at that commit.
    expect(build.modules).toEqual(["base_mod", "broken", "chatty", "extra_mod", "slow_install"]);
    // Further polls notice the same head and start nothing.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(await automatic("watched")).toHaveLength(1);
    // main is not followed by `watched`: its commits start nothing.
    pushCommit(watched, "main", "not followed here");
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(await automatic("watched")).toHaveLength(1);
    // A branch gone from the repository is noticed too: its automatic build is stopped and destroyed.
    git(watched.work, "push", "--quiet", "origin", "--delete", "poll/one");
    expect((await builds.waitForStatus(build.build_id, ["destroyed"], 20_000)).status).toBe("destroyed");
  });
});

describe("GET /app-config", () => {
  it("says which branches each repository follows", async () => {
    const config = await (await builds.get("/app-config")).json();
    const byAlias = Object.fromEntries(
      config.repositories.map((repository: { alias: string }) => [repository.alias, repository]),
    );
    expect(byAlias.demo.auto_build).toBeNull();
    expect(byAlias.hooked.auto_build).toEqual({
      branches: ["main", "topic/*"],
      modules: ["base_mod"],
      ttl_seconds: 600,
      webhook: true,
      watch_interval_seconds: null,
    });
    expect(byAlias.watched.auto_build).toMatchObject({
      branches: ["poll/*"],
      modules: "all",
      webhook: false,
      watch_interval_seconds: 1,
    });
    expect(JSON.stringify(config)).not.toContain(SECRET);
  });
});
