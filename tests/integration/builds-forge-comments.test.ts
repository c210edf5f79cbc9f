import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hmacHex, makeRemote, type Remote, waitFor } from "../support/auto-builds";
import {
  type BuildJson,
  type BuildsApp,
  fixtureConfig,
  makeBuildsFixture,
  pidsOfBuild,
  startBuildsApp,
  tearDownBuilds,
} from "../support/builds";
import { type ForgeRequest, type ForgeServer, startForgeServer } from "../support/forge-server";
import { githubPullRequest, pushPullRequestHead } from "../support/pull-requests";

// The pull request's one comment tells where its preview is now, through every end of it: it is
// edited when the preview sleeps and wakes, expires, is destroyed, or its runtime dies; the commit status stays
// the build's verdict. Two repositories on a loopback stand-in of GitHub's API: "brief" gives its previews four
// seconds to live, "hub" an hour.
const SECRET = `comments-s3cret-${crypto.randomUUID()}`;
const TOKEN = `ghp_${crypto.randomBytes(12).toString("hex")}`;
let builds: BuildsApp;
let brief: Remote;
let hub: Remote;
let github: ForgeServer;

// The comment gives times to the minute. To show that an expired preview destroyed later has its page kept from
// the destroy on, the destroy must end in a later minute of "kept until" than the expiry. Two weeks and some
// seconds of retention (fractions of a day are for tests) put that minute's turn 30 s after the file starts, past
// the expiry on a quiet machine, rather than wherever the clock's next minute is (up to a minute of waiting).
const MINUTE_MS = 60_000;
const TURN_AFTER_MS = 30_000;
const RETENTION_MS = 14 * 24 * 3600 * 1000 + ((MINUTE_MS - ((Date.now() + TURN_AFTER_MS) % MINUTE_MS)) % MINUTE_MS);
/** "2026-11-24 18:30": the minute of "kept until" the comment would give a build that ended now. */
const keptUntilIfEndedNow = () => new Date(Date.now() + RETENTION_MS).toISOString().slice(0, 16).replace("T", " ");

beforeAll(async () => {
  github = await startForgeServer();
  const repository = (alias: string, ttl: number) => `
  - alias: ${alias}
    url: ./${alias}.git
    modules_path: addons
    module_manifest: manifest.json
    webhook_secret_env: COMMENTS_TEST_HOOK_SECRET
    auto_build: { branches: [main], modules: [base_mod], ttl_seconds: ${ttl} }
    forge: { kind: github, api_url: "${github.url}", project: acme/${alias}, token_env: COMMENTS_TEST_TOKEN, comment: true }`;
  const fixture = makeBuildsFixture(
    (partial) =>
      `${fixtureConfig(partial, {
        maxConcurrent: 3,
        ttl: "{ default_seconds: 3600, min_seconds: 1, max_seconds: 86400, choices: [3600] }",
        extraRepositories: [repository("brief", 4), repository("hub", 3600)].join(""),
      })}retention_days: ${RETENTION_MS / (24 * 3600 * 1000)}\n`,
  );
  [brief, hub] = ["brief", "hub"].map((name) => makeRemote(fixture, name));
  builds = await startBuildsApp(fixture, {
    COMMENTS_TEST_HOOK_SECRET: SECRET,
    COMMENTS_TEST_TOKEN: TOKEN,
    PUBLIC_URL: "https://runbot.example.test",
  });
});
afterAll(async () => {
  await tearDownBuilds(builds);
  await github?.close();
});

/** Opens pull request `number` of `alias` with a new head commit; answers its build, running. */
async function openPullRequest(alias: string, remote: Remote, number: number): Promise<BuildJson> {
  const sha = pushPullRequestHead(remote, `refs/pull/${number}/head`, `change ${number}`);
  const body = JSON.stringify(githubPullRequest("opened", number, sha));
  const headers = {
    "Content-Type": "application/json",
    "X-GitHub-Event": "pull_request",
    "X-GitHub-Delivery": crypto.randomUUID(),
    "X-Hub-Signature-256": `sha256=${hmacHex(SECRET, body)}`,
  };
  const response = await builds.app.fetch(`/hooks/${alias}`, { method: "POST", headers, body });
  const answer = await response.json();
  expect(response.status, JSON.stringify(answer)).toBe(202);
  const build = await builds.waitForStatus(answer.build.build_id, ["running", "failed"]);
  expect(build.status).toBe("running");
  return build;
}

/** The pull request's comment: the one POST that made it, then the edits of that comment, and its texts in order. */
function commentOf(alias: string, number: number): { made: ForgeRequest[]; edits: ForgeRequest[]; texts: string[] } {
  const made = github.requests.filter(
    (r) => r.method === "POST" && r.path === `/repos/acme/${alias}/issues/${number}/comments`,
  );
  const id = (made[0]?.answer?.body as { id?: number } | undefined)?.id;
  const edits =
    id === undefined
      ? []
      : github.requests.filter((r) => r.method === "PATCH" && r.path === `/repos/acme/${alias}/issues/comments/${id}`);
  return { made, edits, texts: [...made, ...edits].map((r) => String(r.body.body)) };
}

/** Waits until the comment's latest text contains `words`, and answers it. */
async function commentSays(alias: string, number: number, words: string): Promise<string> {
  return waitFor(`the comment on ${alias}#${number} to say "${words}"`, async () => {
    const last = commentOf(alias, number).texts.at(-1);
    return last?.includes(words) ? last : undefined;
  });
}

const shaOf = (build: BuildJson) => (build.repositories as { commit_sha: string }[])[0].commit_sha;
const statusesOf = (alias: string, build: BuildJson) =>
  github
    .requestsTo(`/repos/acme/${alias}/statuses/${shaOf(build)}`)
    .map((r) => `${r.body.state} ${r.body.description}`);

// Concurrent: the expiry test waits for the turn of a minute of kept-until before its destroy; the other previews go
// through their ends meanwhile, each on its own pull request. Sleep, wake and DELETE act on one preview, in turn.
describe("the pull request comment follows its preview to its end", { concurrent: true }, () => {
  it("a preview whose time to live ends: the comment says it expired, and when; the commit status stays success", async () => {
    const build = await openPullRequest("brief", brief, 11);
    await builds.waitForStatus(build.build_id, ["expired"], 30_000);
    const text = await commentSays("brief", 11, "⌛ expired: its time to live ended at ");
    expect(text).toContain(`[build ${build.build_id}](https://runbot.example.test/builds/${build.build_id})`);
    expect(text).toMatch(/Its page and logs are kept until \d{4}-\d\d-\d\d \d\d:\d\d UTC\./);
    const { made, edits, texts } = commentOf("brief", 11);
    expect(made).toHaveLength(1);
    // Edited in place: every other request about it is an edit of that one comment.
    expect(
      github.requests.filter(
        (r) => r.method === "PATCH" && String(r.body.body).includes(`\`${shaOf(build).slice(0, 12)}\``),
      ),
    ).toEqual(edits);
    expect(texts.some((said) => said.includes("✅ the preview is running"))).toBe(true);
    // The expiry's report came after any status it could have sent (one build's reports go in order).
    expect(statusesOf("brief", build)).toEqual(["pending Queued", "pending Building", "success Preview running"]);
    const reports = (
      (await (await builds.get(`/builds/${build.build_id}`)).json()) as {
        forge_reports: { kind: string; state: string; outcome: string }[];
      }
    ).forge_reports;
    expect(reports.filter((r) => r.kind === "comment").at(-1)).toMatchObject({ state: "expired", outcome: "sent" });
    // Destroyed later, the expired preview still says it expired, and its page is kept from the destroy on.
    const keptUntil = (said: string) => said.match(/kept until (\d{4}-\d\d-\d\d \d\d:\d\d) UTC/)![1];
    await waitFor(
      "a later minute of kept-until than the expiry's",
      async () => keptUntilIfEndedNow() !== keptUntil(text),
      70_000,
    );
    const response = await builds.app.fetch(`/builds/${build.build_id}`, {
      method: "DELETE",
      headers: builds.authorization,
    });
    expect((await response.json()).status).toBe("destroyed");
    const edited = await waitFor("the comment edited for the destroy", async () => {
      const last = commentOf("brief", 11).texts.at(-1)!;
      return keptUntil(last) !== keptUntil(text) && last;
    });
    expect(edited).toContain("⌛ expired: its time to live ended at ");
    expect(keptUntil(edited) > keptUntil(text)).toBe(true);
  }, 150_000);

  describe("one preview, slept, woken, then destroyed", () => {
    it.sequential("sleep and wake: the comment says sleeping, then running again; the commit status is not touched", async () => {
      const build = await openPullRequest("hub", hub, 12);
      await commentSays("hub", 12, "✅ the preview is running");
      const act = (action: "sleep" | "wake") =>
        builds.app.fetch(`/builds/${build.build_id}/${action}`, { method: "POST", headers: builds.authorization });
      expect((await act("sleep")).status).toBe(200);
      await commentSays("hub", 12, "💤 the preview is sleeping (stopped, its data kept)");
      expect((await act("wake")).status).toBe(200);
      await commentSays("hub", 12, "✅ the preview is running");
      expect(statusesOf("hub", build)).toEqual(["pending Queued", "pending Building", "success Preview running"]);
    });

    it.sequential("DELETE: the comment says the preview was destroyed on request; the commit status stays success", async () => {
      const [build] = await runningBuildsOf("hub", 12);
      const response = await builds.app.fetch(`/builds/${build.build_id}`, {
        method: "DELETE",
        headers: builds.authorization,
      });
      expect((await response.json()).status).toBe("destroyed");
      await commentSays("hub", 12, "🗑️ the preview was destroyed on request, before its time to live ended");
      expect(statusesOf("hub", build)).toEqual(["pending Queued", "pending Building", "success Preview running"]);
      expect(commentOf("hub", 12).made).toHaveLength(1);
    });
  });

  it("a runtime that dies: the comment says the preview stopped, and the commit status turns to failure", async () => {
    const build = await openPullRequest("hub", hub, 13);
    await commentSays("hub", 13, "✅ the preview is running");
    for (const pid of await pidsOfBuild(builds, build.build_id)) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        /* already gone */
      }
    }
    await builds.waitForStatus(build.build_id, ["failed"], 15_000);
    await commentSays("hub", 13, "❌ the preview stopped: its runtime exited while it was running");
    await waitFor("the failure status", async () => statusesOf("hub", build).length >= 4);
    expect(statusesOf("hub", build)).toEqual([
      "pending Queued",
      "pending Building",
      "success Preview running",
      "failure Failed at stage start",
    ]);
  });
});

async function runningBuildsOf(alias: string, number: number): Promise<BuildJson[]> {
  const list = ((await (await builds.get("/builds?limit=100")).json()) as { builds: BuildJson[] }).builds;
  return list.filter((build) => {
    const [repository] = build.repositories as { repository: string; ref: string }[];
    return (
      build.status === "running" && repository.repository === alias && repository.ref === `refs/pull/${number}/head`
    );
  });
}
