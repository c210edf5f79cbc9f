import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commandEnvironment, freePort, freePortBelowEphemeral } from "../support/app-server";
import { deliverGitHub, git, githubPush, makeRemote, pushCommit, type Remote, waitFor } from "../support/auto-builds";
import {
  type BuildJson,
  type BuildsApp,
  fixtureUids,
  makeBuildsFixture,
  startBuildsApp,
  tearDownBuilds,
} from "../support/builds";
import { type Gateway, ODOO_LIKE_PREVIEW, type RawResponse, requestThrough, startGateway } from "../support/gateway";
import { signInWithCookie } from "../support/sessions";
import { registerAndGetToken } from "../support/users";

/**
 * Previews as a team reaches them, through `npm run gateway` (the real nginx) in front of the built app, with a
 * real git repository pushed to like a host's (`shop.git`, whose `feature/*` branches are also built on a signed
 * webhook): branches reached at their readable names, a name not found answered with the live names near it,
 * a build's own preview access (PATCH /builds/{build_id}) kept by its branch's next builds, and share links that
 * follow the branch.
 */
const DOMAIN = "preview.localhost";
const SECRET = `hook-${crypto.randomUUID()}`;
const BROWSER = { Accept: "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8" };
let builds: BuildsApp;
let gateway: Gateway;
let remote: Remote;
let port: number;
let dashboard: string;
/** A user who is not an admin, and owns `priceList`. */
let owner: { authorization: Record<string, string>; email: string; password: string };
let priceList: BuildJson;

beforeAll(async () => {
  port = await freePortBelowEphemeral();
  const appPort = await freePort();
  dashboard = `http://127.0.0.1:${appPort}`;
  const fixture = makeBuildsFixture(
    (f) => `
builds_root: ${f.buildsRoot}
max_concurrent_builds: 3
ports: { start: ${f.ports.start}, end: ${f.ports.end} }
reaper_interval_seconds: 0.5
gateway: { domain: ${DOMAIN}, port: ${port} }
runtime:
  driver: process
  run_as_uids: ${JSON.stringify(fixtureUids(f.ports))}
  start: ${ODOO_LIKE_PREVIEW}
  healthcheck: { path: /web/login, timeout_seconds: 30 }
repositories:
  - alias: shop
    url: ./shop.git
    modules_path: addons
    module_manifest: manifest.json
    allow_request_ref: true
    webhook_secret_env: NAMES_TEST_HOOK_SECRET
    auto_build: { branches: ["feature/*"], modules: [base_mod], ttl_seconds: 600 }
`,
  );
  remote = makeRemote(fixture, "shop");
  // The fixture's `feature` branch would keep git from making `feature/...` ones.
  git(remote.work, "push", "--quiet", "origin", "--delete", "feature");
  for (const branch of ["feature/price-list", "feature/x", "feature_x"])
    pushCommit(remote, branch, `work on ${branch}`);
  const env = { NAMES_TEST_HOOK_SECRET: SECRET };
  builds = await startBuildsApp(fixture, { ...env, PORT: String(appPort), PUBLIC_URL: dashboard });
  gateway = await startGateway({
    port,
    appUrl: builds.app.baseUrl,
    env: { ...env, ...commandEnvironment(builds.app), BUILDS_CONFIG: fixture.configFile },
    dataDir: builds.app.dataDir,
  });
  owner = await registerAndGetToken(builds.app);
  const started = await Promise.all(
    [
      { ref: "feature/price-list", authorization: owner.authorization },
      { ref: "feature/x", authorization: builds.authorization },
      { ref: "feature_x", authorization: builds.authorization },
    ].map(async ({ ref, authorization }) => {
      const response = await builds.app.fetch("/builds", {
        method: "POST",
        headers: { ...authorization, "Content-Type": "application/json" },
        body: JSON.stringify({ repositories: [{ repository: "shop", ref }], modules: ["base_mod"] }),
      });
      expect(response.status).toBe(202);
      return ((await response.json()) as BuildJson).build_id;
    }),
  );
  [priceList] = await Promise.all(started.map((id) => builds.waitForStatus(id, ["running"], 90_000)));
}, 240_000);
afterAll(async () => {
  await gateway?.stop();
  await tearDownBuilds(builds);
});

const through = (label: string, path = "/", headers: Record<string, string> = {}) =>
  requestThrough(port, { host: `${label}.${DOMAIN}:${port}`, path, headers });
const seenBy = (response: RawResponse) => JSON.parse(response.body) as { build_id: string };
const GATEWAY_CACHE_MS = 2_100;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const branchName = (build: BuildJson) =>
  (build.preview_names as { kind: string; name: string }[]).find((name) => name.kind === "branch")!.name;
const labelOf = (name: string) => name.slice(0, -`.${DOMAIN}`.length);
/** The hashed label lib/builds/preview-names.ts gives a branch that is not a label as it stands. */
const hashedLabel = async (buildId: string) => {
  const names = (await (await builds.get(`/builds/${buildId}`, { headers: builds.authorization })).json())
    .preview_names as { name: string }[];
  return labelOf(names[1].name);
};
const patch = (buildId: string, body: unknown, authorization: Record<string, string>) =>
  builds.app.fetch(`/builds/${buildId}`, {
    method: "PATCH",
    headers: { ...authorization, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
const gatewayCookieOf = (response: RawResponse) =>
  (response.headers["set-cookie"] ?? []).find((cookie) => cookie.startsWith("preview-access="))!.split(";")[0];

describe("a branch's readable name", () => {
  it("is its text made a label, shown in the build's names and served by the gateway", async () => {
    expect(branchName(priceList)).toBe(`feature-price-list--shop.${DOMAIN}`);
    const response = await through("feature-price-list--shop", "/anything");
    expect(response.status).toBe(200);
    expect(seenBy(response).build_id).toBe(priceList.build_id);
  });

  it("is not given when two live branches make the same: both keep their hashed names, which work", async () => {
    const all = (await (await builds.get("/builds?limit=10")).json()).builds as BuildJson[];
    const clashing = all.filter((build) =>
      ["feature/x", "feature_x"].includes((build.repositories as { ref: string }[])[0].ref),
    );
    expect(clashing).toHaveLength(2);
    for (const build of clashing) {
      const label = labelOf(branchName(build));
      expect(label).toMatch(/^feature-x-[0-9][a-z0-9]{5}--shop$/);
      expect(await hashedLabel(build.build_id)).toBe(label);
      const response = await through(label);
      expect(response.status).toBe(200);
      expect(seenBy(response).build_id).toBe(build.build_id);
    }
    const guessed = await through("feature-x--shop");
    expect(guessed.status).toBe(404);
  });
});

describe("a name not found", () => {
  it("answers 404 in the visitor's language with the repository's live public names, nearest first", async () => {
    const spanish = await through("feature-price-lst--shop", "/", { ...BROWSER, "Accept-Language": "es-VE,es;q=0.9" });
    expect(spanish.status).toBe(404);
    expect(spanish.headers["content-type"]).toContain("text/html");
    expect(spanish.body).toContain('lang="es"');
    expect(spanish.body).toContain("Sus vistas previas públicas activas");
    const listed = [...spanish.body.matchAll(/<li><a href="([^"]+)">([^<]+)<\/a><\/li>/g)].map((match) => match[2]);
    expect(listed[0]).toBe(`feature-price-list--shop.${DOMAIN}`);
    expect(listed).toHaveLength(3);
    expect(spanish.body).toContain(`href="http://feature-price-list--shop.${DOMAIN}:${port}/"`);

    const english = await through("nothing--shop", "/", { ...BROWSER, "Accept-Language": "en" });
    expect(english.status).toBe(404);
    expect(english.body).toContain("Its live public previews, nearest first");
    const problem = await through("feature-price-lst--shop");
    expect(problem.headers["content-type"]).toContain("application/problem+json");
    expect(JSON.parse(problem.body).detail).toContain(`http://feature-price-list--shop.${DOMAIN}:${port}/`);
  });
});

describe("PATCH /builds/{build_id} with preview_access", () => {
  it("lets the build's owner keep its preview to signed-in users, at every name of it", async () => {
    const response = await patch(priceList.build_id, { preview_access: "users" }, owner.authorization);
    expect(response.status).toBe(200);
    expect((await response.json()).preview_access).toBe("users");
    const signedIn = { headers: builds.authorization };
    expect((await (await builds.get(`/builds/${priceList.build_id}`, signedIn)).json()).preview_access).toBe("users");
    // A stranger no longer sees it in the API either: its JSON is a 404, and the list leaves it out.
    expect((await builds.get(`/builds/${priceList.build_id}`)).status).toBe(404);
    const listed = (await (await builds.get("/builds?limit=10")).json()).builds as BuildJson[];
    expect(listed.map((build) => build.build_id)).not.toContain(priceList.build_id);
    expect(listed.length).toBeGreaterThanOrEqual(2);
    await sleep(GATEWAY_CACHE_MS);
    for (const label of ["feature-price-list--shop", priceList.build_id, await hashedLabel(priceList.build_id)])
      expect((await through(label)).status, label).toBe(401);
    // The other builds of the repository keep its default.
    const all = (await (await builds.get("/builds?limit=10")).json()).builds as BuildJson[];
    for (const build of all.filter((item) => item.build_id !== priceList.build_id))
      expect(build.preview_access).toBe("public");
  });

  it("lists a private name only to a visitor signed in through the gateway", async () => {
    const anonymous = await through("feature-price-lst--shop", "/", BROWSER);
    expect(anonymous.body).not.toContain("feature-price-list--shop");
    const signIn = /<a href="([^"]+)">Sign in<\/a>/.exec(anonymous.body.replaceAll("&#38;", "&"));
    expect(signIn).not.toBeNull();
    const ticketUrl = new URL(signIn![1]);
    expect(`${ticketUrl.origin}${ticketUrl.pathname}`).toBe(`${dashboard}/gateway/ticket`);

    const { cookie } = await signInWithCookie(builds.app, owner.email, owner.password);
    const ticket = await fetch(ticketUrl, { headers: { ...BROWSER, Cookie: cookie }, redirect: "manual" });
    expect(ticket.status).toBe(303);
    const admit = new URL(ticket.headers.get("location")!);
    const admitted = await through("feature-price-lst--shop", `${admit.pathname}${admit.search}`, BROWSER);
    expect(admitted.status).toBe(303);
    const signedIn = await through("feature-price-lst--shop", "/", {
      ...BROWSER,
      Cookie: gatewayCookieOf(admitted),
    });
    expect(signedIn.status).toBe(404);
    expect(signedIn.body).toContain("Its live previews, nearest first");
    expect(signedIn.body).toContain(`>feature-price-list--shop.${DOMAIN}<`);
    expect(signedIn.body).not.toContain(">Sign in<");
  });

  it("is refused to another user (403) and to no one (401), and changes nothing", async () => {
    const stranger = await registerAndGetToken(builds.app);
    const refused = await patch(priceList.build_id, { preview_access: "public" }, stranger.authorization);
    expect(refused.status).toBe(403);
    expect(refused.headers.get("content-type")).toContain("application/problem+json");
    expect((await patch(priceList.build_id, { preview_access: "public" }, {})).status).toBe(401);
    for (const body of [{ preview_access: "everyone" }, {}, { preview_access: "users", status: "running" }]) {
      const bad = await patch(priceList.build_id, body, owner.authorization);
      expect([400, 422], JSON.stringify(body)).toContain(bad.status);
      expect(bad.headers.get("content-type")).toContain("application/problem+json");
    }
    expect((await patch("0000000000000000", { preview_access: "users" }, owner.authorization)).status).toBe(404);
    const current = await builds.get(`/builds/${priceList.build_id}`, { headers: owner.authorization });
    expect((await current.json()).preview_access).toBe("users");
  });
});

describe("POST /builds/{build_id}/share", () => {
  let newer: BuildJson;
  let branchLink: URL;

  it("makes, by default, a link at the branch's name that opens the private preview", async () => {
    const created = await builds.app.fetch(`/builds/${priceList.build_id}/share`, {
      method: "POST",
      headers: owner.authorization,
    });
    expect(created.status).toBe(201);
    const body = (await created.json()) as { url: string; scope: string };
    expect(body.scope).toBe("branch");
    branchLink = new URL(body.url);
    expect(branchLink.host).toBe(`feature-price-list--shop.${DOMAIN}:${port}`);
    const opened = await through("feature-price-list--shop", branchLink.pathname, BROWSER);
    expect(opened.status).toBe(303);
    const response = await through("feature-price-list--shop", "/", { Cookie: gatewayCookieOf(opened) });
    expect(response.status).toBe(200);
    expect(seenBy(response).build_id).toBe(priceList.build_id);
  });

  it("follows the branch: the next automatic build keeps its privacy, and the same link opens it", async () => {
    const sha = pushCommit(remote, "feature/price-list", "price list: rounding");
    const hook = await deliverGitHub(builds, "shop", githubPush("feature/price-list", sha), SECRET);
    expect(hook.status).toBe(202);
    const started = (await hook.json()).build as BuildJson;
    expect(started.preview_access).toBe("users");
    newer = await builds.waitForStatus(started.build_id, ["running"], 90_000);
    expect(newer.trigger).toBe("webhook");
    expect(newer.preview_access).toBe("users");
    // The older build may be destroyed once the newer runs: the branch's name leads to the newer either way.
    await sleep(GATEWAY_CACHE_MS);
    expect((await through("feature-price-list--shop")).status).toBe(401);
    const opened = await through("feature-price-list--shop", branchLink.pathname, BROWSER);
    expect(opened.status).toBe(303);
    const response = await waitFor("the branch's name to lead to the newer build", async () => {
      const answer = await through("feature-price-list--shop", "/", { Cookie: gatewayCookieOf(opened) });
      return answer.status === 200 && seenBy(answer).build_id === newer.build_id && answer;
    });
    expect(response.status).toBe(200);
  });

  it("with scope build, stays on the build: its own name, and not its branch's", async () => {
    const created = await builds.app.fetch(`/builds/${newer.build_id}/share`, {
      method: "POST",
      headers: { ...builds.authorization, "Content-Type": "application/json" },
      body: JSON.stringify({ scope: "build" }),
    });
    expect(created.status).toBe(201);
    const body = (await created.json()) as { url: string; scope: string };
    expect(body.scope).toBe("build");
    const link = new URL(body.url);
    expect(link.host).toBe(`${newer.build_id}.${DOMAIN}:${port}`);
    expect((await through("feature-price-list--shop", link.pathname, BROWSER)).status).toBe(404);
    const opened = await through(newer.build_id, link.pathname, BROWSER);
    expect(opened.status).toBe(303);
    const cookie = gatewayCookieOf(opened);
    expect(seenBy(await through(newer.build_id, "/", { Cookie: cookie })).build_id).toBe(newer.build_id);
    const bad = await builds.app.fetch(`/builds/${newer.build_id}/share`, {
      method: "POST",
      headers: { ...builds.authorization, "Content-Type": "application/json" },
      body: JSON.stringify({ scope: "repository" }),
    });
    expect([400, 422]).toContain(bad.status);
  });
});

describe("GET /builds/repositories/{alias}/branches", () => {
  const branches = (query = "", authorization = owner.authorization) =>
    builds.app.fetch(`/builds/repositories/shop/branches${query}`, { headers: authorization });

  it("lists the repository's branches from its mirror, fetched first: the default ref, then by name", async () => {
    pushCommit(remote, "feature/just-pushed", "a branch pushed a moment ago");
    const response = await branches();
    expect(response.status).toBe(200);
    const body = (await response.json()) as { default_ref: string; branches: { name: string; commit_sha: string }[] };
    expect(body.default_ref).toBe("main");
    expect(body.branches.map((branch) => branch.name)).toEqual([
      "main",
      "feature/just-pushed",
      "feature/price-list",
      "feature/x",
      "feature_x",
    ]);
    const pushed = body.branches.find((branch) => branch.name === "feature/just-pushed")!;
    expect(pushed.commit_sha).toBe(git(remote.work, "rev-parse", "feature/just-pushed"));
  });

  it("narrows to the names holding `q`, those starting with it first, and to `limit`", async () => {
    const body = await (await branches("?q=X")).json();
    expect(body.branches.map((branch: { name: string }) => branch.name)).toEqual(["feature/x", "feature_x"]);
    const limited = await (await branches("?q=feature&limit=2")).json();
    expect(limited.branches.map((branch: { name: string }) => branch.name)).toEqual([
      "feature/just-pushed",
      "feature/price-list",
    ]);
    expect(limited.truncated).toBe(true);
  });

  it("is for signed-in users; 404 for an unknown repository; bad limits are named", async () => {
    expect((await branches("", {})).status).toBe(401);
    const unknown = await builds.app.fetch("/builds/repositories/nosuch/branches", { headers: owner.authorization });
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get("content-type")).toContain("application/problem+json");
    for (const limit of ["0", "501", "x"]) {
      const bad = await branches(`?limit=${limit}`);
      expect([400, 422], limit).toContain(bad.status);
      expect(JSON.stringify(await bad.json())).toContain("limit");
    }
  });
});
