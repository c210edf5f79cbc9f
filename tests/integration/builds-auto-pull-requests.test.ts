import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { git, hmacHex, listAllBuilds, makeRemote, type Remote, waitFor } from "../support/auto-builds";
import {
  type BuildJson,
  type BuildsApp,
  fixtureConfig,
  makeBuildsFixture,
  startBuildsApp,
  tearDownBuilds,
} from "../support/builds";
import { type ForgeServer, startForgeServer } from "../support/forge-server";
import {
  giteaPullRequest,
  githubPullRequest,
  gitlabMergeRequest,
  listedPullRequest,
  pushPullRequestHead,
} from "../support/pull-requests";

// POST /hooks/{alias} with pull and merge request events, signed as each host signs them. Each
// repository is a bare repository that publishes its pull requests' heads the way its host does
// (refs/pull/<n>/head, GitLab refs/merge-requests/<iid>/head). The GitHub one has a forge block with
// comments on, served by a loopback stand-in of GitHub's API.
const SECRET = `pr-s3cret-${crypto.randomUUID()}`;
const TOKEN = `ghp_${crypto.randomBytes(12).toString("hex")}`;
let builds: BuildsApp;
let hub: Remote;
let lab: Remote;
let tea: Remote;
let forks: Remote;
let github: ForgeServer;
/** The pull requests of acme/hub that the GitHub stand-in lists as open. */
let hubOpen: { number: number; sha: string }[] = [];

beforeAll(async () => {
  github = await startForgeServer();
  github.serve("/repos/acme/hub/pulls", () => ({
    status: 200,
    body: hubOpen.map((pull) => listedPullRequest("github", pull.number, pull.sha)),
  }));
  github.serve("/repos/acme/forks/pulls", () => ({ status: 200, body: [] }));
  const repository = (alias: string, extra = "") => `
  - alias: ${alias}
    url: ./${alias}.git
    modules_path: addons
    module_manifest: manifest.json
    webhook_secret_env: PR_TEST_HOOK_SECRET
    auto_build: { branches: [main], modules: [base_mod] }${extra}`;
  const fixture = makeBuildsFixture((partial) =>
    fixtureConfig(partial, {
      maxConcurrent: 3,
      extraRepositories: [
        repository(
          "hub",
          `\n    forge: { kind: github, api_url: "${github.url}", project: acme/hub, token_env: PR_TEST_TOKEN, comment: true }`,
        ),
        repository("lab"),
        repository("tea"),
        repository(
          "forks",
          `\n    forge: { kind: github, api_url: "${github.url}", project: acme/forks, token_env: PR_TEST_TOKEN, build_forks: true }`,
        ),
      ].join(""),
    }),
  );
  [hub, lab, tea, forks] = ["hub", "lab", "tea", "forks"].map((name) => makeRemote(fixture, name));
  builds = await startBuildsApp(fixture, {
    PR_TEST_HOOK_SECRET: SECRET,
    PR_TEST_TOKEN: TOKEN,
    PUBLIC_URL: "https://runbot.example.test",
  });
});
afterAll(async () => {
  await tearDownBuilds(builds);
  await github?.close();
});

function deliver(alias: string, host: "github" | "gitlab" | "gitea", payload: unknown) {
  const body = JSON.stringify(payload);
  const headers: Record<string, string> = { "Content-Type": "application/json" };
  if (host === "github")
    Object.assign(headers, {
      "X-GitHub-Event": "pull_request",
      "X-GitHub-Delivery": crypto.randomUUID(),
      "X-Hub-Signature-256": `sha256=${hmacHex(SECRET, body)}`,
    });
  if (host === "gitlab")
    Object.assign(headers, {
      "X-Gitlab-Event": "Merge Request Hook",
      "X-Gitlab-Token": SECRET,
      "X-Gitlab-Event-UUID": crypto.randomUUID(),
    });
  if (host === "gitea")
    Object.assign(headers, {
      "X-Gitea-Event": "pull_request",
      "X-Gitea-Delivery": crypto.randomUUID(),
      "X-Gitea-Signature": hmacHex(SECRET, body),
    });
  return builds.app.fetch(`/hooks/${alias}`, { method: "POST", headers, body });
}

const buildsOf = async (alias: string, ref: string) =>
  (await listAllBuilds(builds)).filter((build) =>
    (build.repositories as { repository: string; ref: string }[]).some((r) => r.repository === alias && r.ref === ref),
  );

async function isDestroyed(buildId: string) {
  const build = (await (await builds.get(`/builds/${buildId}`)).json()) as BuildJson;
  return build.status === "destroyed";
}

/** Open, new commits, close: the life of one pull request on one host. */
function followsPullRequests(
  host: "github" | "gitlab" | "gitea",
  alias: string,
  remote: () => Remote,
  event: (action: "open" | "update" | "close", number: number, sha: string) => unknown,
) {
  const ref = host === "gitlab" ? "refs/merge-requests/7/head" : "refs/pull/7/head";
  let first: BuildJson;

  it(`${host}: opening a pull request builds its head, fetched from ${ref}`, async () => {
    const sha = pushPullRequestHead(remote(), ref, "invoices: a due date on the report");
    const response = await deliver(alias, host, event("open", 7, sha));
    const body = await response.json();
    expect(response.status, JSON.stringify(body)).toBe(202);
    expect(body).toMatchObject({ result: "started", repository: alias, branch: ref, pull_request: 7, commit_sha: sha });
    first = body.build;
    expect(first).toMatchObject({
      trigger: "webhook",
      modules: ["base_mod"],
      repositories: [{ repository: alias, ref, commit_sha: sha }],
    });
    expect((await builds.waitForStatus(first.build_id, ["running", "failed"])).status).toBe("running");
  });

  it(`${host}: new commits build the new head, which replaces the older preview`, async () => {
    const sha = pushPullRequestHead(remote(), ref, "invoices: and on the PDF");
    const response = await deliver(alias, host, event("update", 7, sha));
    const body = await response.json();
    expect(response.status, JSON.stringify(body)).toBe(202);
    expect(body).toMatchObject({ result: "started", commit_sha: sha });
    expect((await builds.waitForStatus(body.build.build_id, ["running", "failed"])).status).toBe("running");
    await waitFor("the older preview destroyed", () => isDestroyed(first.build_id));
    const live = (await buildsOf(alias, ref)).filter((build) => build.status === "running");
    expect(live.map((build) => build.build_id)).toEqual([body.build.build_id]);
    first = body.build;
  });

  if (host === "github") {
    it("github: a close the host does not confirm (it still lists the pull request open) destroys nothing", async () => {
      const sha = (first.repositories as { commit_sha: string }[])[0].commit_sha;
      hubOpen = [{ number: 7, sha }];
      try {
        // Closed, not merged: another body than the real close's below (the same body twice is one delivery).
        const response = await deliver(alias, host, githubPullRequest("closed", 7, sha));
        const body = await response.json();
        expect(response.status, JSON.stringify(body)).toBe(200);
        expect(body).toMatchObject({ result: "nothing_to_do", pull_request: 7, build_ids: [] });
        expect(body.detail).toMatch(/still open on the host/);
        expect((await (await builds.get(`/builds/${first.build_id}`)).json()).status).toBe("running");
      } finally {
        hubOpen = [];
      }
    });
  }

  it(`${host}: closing the pull request destroys its preview`, async () => {
    const response = await deliver(
      alias,
      host,
      event("close", 7, (first.repositories as { commit_sha: string }[])[0].commit_sha),
    );
    const body = await response.json();
    expect(response.status, JSON.stringify(body)).toBe(202);
    expect(body).toMatchObject({ result: "destroying", pull_request: 7, build_ids: [first.build_id] });
    await waitFor("the preview destroyed", () => isDestroyed(first.build_id));
  });

  it(`${host}: a pull request from a fork is not built by default`, async () => {
    const sha = pushPullRequestHead(remote(), ref.replace("7", "8"), "a stranger's change");
    const response = await deliver(alias, host, forkOf(host, event("open", 8, sha)));
    const body = await response.json();
    expect(response.status).toBe(200);
    expect(body).toMatchObject({ result: "nothing_to_do", pull_request: 8, build: null });
    expect(body.detail).toMatch(/fork.*build_forks/);
    expect(await buildsOf(alias, ref.replace("7", "8"))).toEqual([]);
  });
}

/** The same event, as if it came from a fork. */
function forkOf(host: "github" | "gitlab" | "gitea", payload: unknown): unknown {
  const copy = structuredClone(payload) as Record<string, Record<string, Record<string, Record<string, unknown>>>>;
  if (host === "gitlab") (copy.object_attributes as unknown as Record<string, unknown>).source_project_id = 4242;
  else copy.pull_request.head.repo = { id: 4242, full_name: "stranger/hub", fork: true };
  return copy;
}

describe("POST /hooks/{alias} with pull request events", () => {
  followsPullRequests(
    "github",
    "hub",
    () => hub,
    (action, number, sha) =>
      githubPullRequest(action === "open" ? "opened" : action === "update" ? "synchronize" : "closed", number, sha, {
        merged: action === "close",
      }),
  );
  followsPullRequests(
    "gitlab",
    "lab",
    () => lab,
    (action, number, sha) =>
      gitlabMergeRequest(action === "open" ? "open" : action === "update" ? "update" : "merge", number, sha),
  );
  followsPullRequests(
    "gitea",
    "tea",
    () => tea,
    (action, number, sha) =>
      giteaPullRequest(action === "open" ? "opened" : action === "update" ? "synchronized" : "closed", number, sha),
  );

  it("github: the pull request has one comment with the preview's state and link, edited in place", async () => {
    await waitFor(
      "the comment edited for the newest build",
      async () =>
        github.requests.filter((r) => r.method === "PATCH" && r.path.includes("/issues/comments/")).length >= 5,
    );
    const posted = github.requests.filter((r) => r.method === "POST" && r.path === "/repos/acme/hub/issues/7/comments");
    expect(posted).toHaveLength(1);
    // The stand-in answered the comment with an id; every later report edits that comment.
    const edits = github.requests.filter(
      (r) => r.method === "PATCH" && r.path.startsWith("/repos/acme/hub/issues/comments/"),
    );
    expect(edits.length).toBeGreaterThan(2);
    expect(new Set(edits.map((r) => r.path))).toEqual(
      new Set([expect.stringMatching(/^\/repos\/acme\/hub\/issues\/comments\/\d+$/)]),
    );
    const texts = [posted[0], ...edits].map((r) => String(r.body.body));
    expect(
      texts.some((text) =>
        /the preview is running — \[build [0-9a-f]{16}\]\(https:\/\/runbot\.example\.test\/builds\/[0-9a-f]{16}\)/.test(
          text,
        ),
      ),
    ).toBe(true);
    for (const request of [posted[0], ...edits]) expect(request.headers.authorization).toBe(`Bearer ${TOKEN}`);
    // The pull request was merged (its close event came last): the comment ends saying so, and nothing overwrites it.
    const lastEdit = () =>
      github.requests
        .filter((r) => r.method === "PATCH" && r.path.startsWith("/repos/acme/hub/issues/comments/"))
        .at(-1)!;
    await waitFor("the comment edited for the merge", async () =>
      String(lastEdit().body.body).includes("pull request #7 was merged, so its preview was destroyed"),
    );
    expect(lastEdit().path).toBe(edits[0].path);
    // Statuses went to the pull request's head commits too.
    expect(github.requests.some((r) => r.path.startsWith("/repos/acme/hub/statuses/"))).toBe(true);
  });

  it("github: a pull request reopened while its close destroys the preview has a preview again", {
    timeout: 60_000,
  }, async () => {
    const sha = pushPullRequestHead(hub, "refs/pull/8/head", "reports: totals per month");
    const opened = await deliver("hub", "github", githubPullRequest("opened", 8, sha));
    expect(opened.status).toBe(202);
    const first = (await opened.json()).build as BuildJson;
    await builds.waitForStatus(first.build_id, ["running"]);
    // Closed (the host lists it no more), and reopened before its preview is gone.
    const closed = await deliver("hub", "github", githubPullRequest("closed", 8, sha));
    expect((await closed.json()).result).toBe("destroying");
    hubOpen = [{ number: 8, sha }];
    try {
      const reopened = await deliver("hub", "github", githubPullRequest("reopened", 8, sha));
      const body = await reopened.json();
      expect(reopened.status, JSON.stringify(body)).toBe(202);
      expect(body).toMatchObject({ result: "started", pull_request: 8, commit_sha: sha });
      await builds.waitForStatus(body.build.build_id, ["running"]);
      await waitFor("the closed preview destroyed", () => isDestroyed(first.build_id));
      const live = (await buildsOf("hub", "refs/pull/8/head")).filter((build) => build.status === "running");
      expect(live.map((build) => build.build_id)).toEqual([body.build.build_id]);
    } finally {
      hubOpen = [];
    }
  });

  it("a fork's pull request is built where build_forks is true", async () => {
    const sha = pushPullRequestHead(forks, "refs/pull/3/head", "a contributor's change");
    const response = await deliver("forks", "github", forkOf("github", githubPullRequest("opened", 3, sha)));
    const body = await response.json();
    expect(response.status, JSON.stringify(body)).toBe(202);
    expect(body).toMatchObject({ result: "started", pull_request: 3, commit_sha: sha });
  });

  it("labels and title edits build nothing; a malformed event is 400 naming the field", async () => {
    const sha = git(hub.work, "rev-parse", "HEAD");
    const labeled = await deliver("hub", "github", githubPullRequest("labeled", 7, sha));
    expect(labeled.status).toBe(200);
    expect((await labeled.json()).result).toBe("nothing_to_do");
    const edited = await deliver("lab", "gitlab", gitlabMergeRequest("update", 9, sha, { oldrev: null }));
    expect((await edited.json()).result).toBe("nothing_to_do");
    const bad = await deliver("hub", "github", { action: "opened", pull_request: { number: "seven" } });
    expect(bad.status).toBe(400);
    expect(bad.headers.get("content-type")).toBe("application/problem+json");
    expect((await bad.json()).errors[0].field).toBe("body.number");
  });
});
