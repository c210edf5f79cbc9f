import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listAllBuilds, makeRemote, type Remote, waitFor } from "../support/auto-builds";
import {
  type BuildJson,
  type BuildsApp,
  fixtureConfig,
  makeBuildsFixture,
  startBuildsApp,
  tearDownBuilds,
} from "../support/builds";
import { type ForgeServer, startForgeServer } from "../support/forge-server";
import { listedPullRequest, pushPullRequestHead } from "../support/pull-requests";

// Polling (watch_interval_seconds) finds open pull requests too where the host is configured. Each
// repository is a bare repository that publishes its pull requests' heads where its host does, and its host's
// API is a loopback stand-in that lists the open pull requests the test says are open, as GitHub, GitLab and
// Gitea list them. No webhook is delivered in this file.
const TOKEN = `tok${crypto.randomBytes(12).toString("hex")}`;
type Host = "github" | "gitlab" | "gitea";
let builds: BuildsApp;
const remotes = {} as Record<Host, Remote>;
const servers = {} as Record<Host, ForgeServer>;
const ALIASES: Record<Host, string> = { github: "hub", gitlab: "lab", gitea: "tea" };
const LIST_PATHS: Record<Host, string> = {
  github: "/repos/acme/hub/pulls",
  gitlab: "/projects/15/merge_requests",
  gitea: "/repos/acme/tea/pulls",
};
/** What each stand-in lists as open, by number; `failing`: the listing answers 500. */
const listed = { github: new Map(), gitlab: new Map(), gitea: new Map() } as Record<Host, Map<number, unknown>>;
const failing = { github: false, gitlab: false, gitea: false } as Record<Host, boolean>;

beforeAll(async () => {
  [servers.github, servers.gitlab, servers.gitea] = await Promise.all([
    startForgeServer(),
    startForgeServer("/api/v4"),
    startForgeServer("/api/v1"),
  ]);
  for (const host of ["github", "gitlab", "gitea"] as const) {
    servers[host].serve(LIST_PATHS[host], (query) => {
      if (failing[host]) return { status: 500, body: { message: "Internal Server Error" } };
      return { status: 200, body: query.get("page") === "1" ? [...listed[host].values()] : [] };
    });
  }
  const repository = (host: Host, project: string) => `
  - alias: ${ALIASES[host]}
    url: ./${ALIASES[host]}.git
    modules_path: addons
    module_manifest: manifest.json
    watch_interval_seconds: 1
    auto_build: { branches: ["never/*"], modules: [base_mod] }
    forge: { kind: ${host}, api_url: "${servers[host].url}", project: "${project}", token_env: POLL_TEST_TOKEN, retries: 1, comment: true }`;
  const fixture = makeBuildsFixture((partial) =>
    fixtureConfig(partial, {
      maxConcurrent: 3,
      extraRepositories: [
        repository("github", "acme/hub"),
        repository("gitlab", "15"),
        repository("gitea", "acme/tea"),
      ].join(""),
    }),
  );
  for (const host of ["github", "gitlab", "gitea"] as const) remotes[host] = makeRemote(fixture, ALIASES[host]);
  builds = await startBuildsApp(fixture, { POLL_TEST_TOKEN: TOKEN, PUBLIC_URL: "https://runbot.example.test" });
});
afterAll(async () => {
  await tearDownBuilds(builds);
  await Promise.all(Object.values(servers).map((server) => server?.close()));
});

const buildsOf = async (alias: string, ref: string) =>
  (await listAllBuilds(builds)).filter((build) =>
    (build.repositories as { repository: string; ref: string }[]).some((r) => r.repository === alias && r.ref === ref),
  );

const buildOfCommit = (alias: string, ref: string, sha: string) =>
  waitFor(
    `a build of ${sha.slice(0, 12)}`,
    async () =>
      (await buildsOf(alias, ref)).find(
        (build) => (build.repositories as { commit_sha: string }[])[0].commit_sha === sha,
      ),
    60_000,
  );

const listings = (host: Host) =>
  servers[host].requests.filter((request) => request.method === "GET" && request.path === LIST_PATHS[host]);

/** Lets the service poll the host `count` more times (and act on what it read). */
async function morePolls(host: Host, count: number) {
  const seen = listings(host).length;
  await waitFor(`${count} more listings from ${host}`, async () => listings(host).length >= seen + count, 30_000);
}

function followsOpenPullRequests(host: Host) {
  const alias = ALIASES[host];
  const ref = (number: number) =>
    host === "gitlab" ? `refs/merge-requests/${number}/head` : `refs/pull/${number}/head`;
  let first: BuildJson;

  it.sequential(`${host}: an open pull request found by polling is built as its preview, from ${ref(5)}`, async () => {
    const sha = pushPullRequestHead(remotes[host], ref(5), "invoices: a due date on the report");
    listed[host].set(5, listedPullRequest(host, 5, sha));
    first = await buildOfCommit(alias, ref(5), sha);
    expect(first).toMatchObject({
      trigger: "poll",
      created_by: "build service",
      modules: ["base_mod"],
      repositories: [{ repository: alias, ref: ref(5), commit_sha: sha }],
    });
    expect((await builds.waitForStatus(first.build_id, ["running", "failed"], 60_000)).status).toBe("running");
    // Asked as the host documents it, with the token of token_env.
    const listing = listings(host).at(-1)!;
    expect(listing.method).toBe("GET");
    expect(listing.query.get("state")).toBe(host === "gitlab" ? "opened" : "open");
    expect(listing.query.get("page")).toBe("1");
    const auth = host === "gitlab" ? listing.headers["private-token"] : listing.headers.authorization;
    expect(auth).toBe(host === "github" ? `Bearer ${TOKEN}` : host === "gitea" ? `token ${TOKEN}` : TOKEN);
    // Later polls find the same head: one build.
    await morePolls(host, 2);
    expect(await buildsOf(alias, ref(5))).toHaveLength(1);
  });

  it.sequential(`${host}: new commits on the pull request build its new head, which replaces the older preview`, async () => {
    const sha = pushPullRequestHead(remotes[host], ref(5), "invoices: and on the PDF");
    listed[host].set(5, listedPullRequest(host, 5, sha));
    const second = await buildOfCommit(alias, ref(5), sha);
    expect((await builds.waitForStatus(second.build_id, ["running", "failed"], 60_000)).status).toBe("running");
    expect((await builds.waitForStatus(first.build_id, ["destroyed"], 30_000)).status).toBe("destroyed");
    expect(
      (await buildsOf(alias, ref(5))).filter((build) => build.status === "running").map((build) => build.build_id),
    ).toEqual([second.build_id]);
    first = second;
  });

  it.sequential(`${host}: a pull request from a fork is listed but not built`, async () => {
    const sha = pushPullRequestHead(remotes[host], ref(6), "a stranger's change");
    listed[host].set(6, listedPullRequest(host, 6, sha, { fork: true }));
    await morePolls(host, 3);
    expect(await buildsOf(alias, ref(6))).toEqual([]);
  });

  it.sequential(`${host}: a listing that fails takes nothing as closed`, async () => {
    failing[host] = true;
    await morePolls(host, 4);
    expect((await builds.waitForStatus(first.build_id, ["running", "destroyed"])).status).toBe("running");
    failing[host] = false;
  });

  it.sequential(`${host}: a pull request no longer listed as open has its preview destroyed`, async () => {
    listed[host].delete(5);
    expect((await builds.waitForStatus(first.build_id, ["destroyed"], 30_000)).status).toBe("destroyed");
    // Its one comment is edited to say so, last.
    const comments = servers[host].requests.filter((request) =>
      String(request.body.body ?? "").includes("**Preview**"),
    );
    const madeOn5 = comments.filter(
      (request) => request.method === "POST" && /\/(issues|merge_requests)\/5\/(comments|notes)$/.test(request.path),
    );
    expect(madeOn5).toHaveLength(1);
    await waitFor("the comment edited for the close", async () => {
      const last = servers[host].requests
        .filter((request) => String(request.body.body ?? "").includes("**Preview**"))
        .at(-1)!;
      return (
        last.method !== "POST" &&
        String(last.body.body).includes("pull request #5 is no longer open, so its preview was destroyed")
      );
    });
    // And it stays so: nothing builds it again.
    await morePolls(host, 2);
    expect((await buildsOf(alias, ref(5))).filter((build) => build.status !== "destroyed")).toEqual([]);
  });
}

// Each host's tests follow one pull request in order; the three hosts share nothing (a repository, a stand-in and
// previews of their own, one build slot each), so their sequences run side by side: most of each test is waiting
// for the next poll.
describe("watch_interval_seconds with a forge: open pull requests", () => {
  for (const host of ["github", "gitlab", "gitea"] as const) {
    describe(host, { concurrent: true }, () => followsOpenPullRequests(host));
  }
});
