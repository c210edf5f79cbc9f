import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { freePortBelowEphemeral } from "../support/app-server";
import { hmacHex, makeRemote, pushCommit, type Remote, waitFor } from "../support/auto-builds";
import {
  type BuildJson,
  type BuildsApp,
  fixtureUids,
  makeBuildsFixture,
  startBuildsApp,
  tearDownBuilds,
} from "../support/builds";
import { type ForgeServer, startForgeServer } from "../support/forge-server";
import { type Gateway, ODOO_LIKE_PREVIEW, rawRequest, requestThrough, startGateway } from "../support/gateway";
import { githubPullRequest, pushPullRequestHead } from "../support/pull-requests";

/**
 * `npm run gateway` (Debian's nginx, the configuration lib/gateway/nginx-config.ts writes) in front of the built
 * app and its previews, all on loopback: each preview a name under preview.localhost, reached through one port.
 * The previews are the stand-in Odoo (tests/support/odoo-like-preview.mjs). Requests are sent to 127.0.0.1 with
 * the name in the Host header, as a browser that resolved it sends them.
 */
const SECRET = `gw-s3cret-${crypto.randomUUID()}`;
const DOMAIN = "preview.localhost";
let builds: BuildsApp;
let gateway: Gateway;
let remote: Remote;
let github: ForgeServer;
let port: number;
const started: Record<string, BuildJson> = {};

beforeAll(async () => {
  port = await freePortBelowEphemeral();
  github = await startForgeServer();
  const fixture = makeBuildsFixture(
    (f) => `
builds_root: ${f.buildsRoot}
max_concurrent_builds: 3
ports: { start: ${f.ports.start}, end: ${f.ports.end} }
reaper_interval_seconds: 0.5
gateway: { domain: ${DOMAIN}, port: ${port}, wakes_per_hour: 1 }
runtime:
  driver: process
  run_as_uids: ${JSON.stringify(fixtureUids(f.ports))}
  start: ${ODOO_LIKE_PREVIEW}
  healthcheck: { path: /web/login, timeout_seconds: 30 }
repositories:
  - alias: demo
    url: ./demo.git
    modules_path: addons
    module_manifest: manifest.json
    webhook_secret: ${SECRET}
    auto_build: { branches: [auto/*], modules: [base_mod] }
    forge: { kind: github, api_url: "${github.url}", project: acme/demo, token_env: GATEWAY_TEST_TOKEN, comment: true }
`,
  );
  remote = makeRemote(fixture, "demo");
  pushCommit(remote, "topic/x", "a topic with a slash");
  pushCommit(remote, "topic-x", "a topic with a dash");
  builds = await startBuildsApp(fixture, {
    PUBLIC_URL: "http://runbot.example.test",
    GATEWAY_TEST_TOKEN: "ghp_test",
    TRUSTED_PROXIES: "127.0.0.1",
  });
  gateway = await startGateway({
    port,
    appUrl: builds.app.baseUrl,
    env: { DATABASE_URL: builds.app.databaseUrl, BUILDS_CONFIG: fixture.configFile, GATEWAY_TEST_TOKEN: "ghp_test" },
    dataDir: builds.app.dataDir,
  });
  // Three previews at once: main, and two branches whose names would collide.
  for (const ref of ["main", "topic/x", "topic-x"]) {
    const response = await builds.post({ repositories: [{ repository: "demo", ref }], modules: ["base_mod"] });
    expect(response.status).toBe(202);
    started[ref] = (await response.json()) as BuildJson;
  }
  for (const ref of Object.keys(started))
    started[ref] = await builds.waitForStatus(started[ref].build_id, ["running"], 60_000);
}, 180_000);
afterAll(async () => {
  await gateway?.stop();
  await tearDownBuilds(builds);
  await github?.close();
});

const through = (host: string, path = "/", init: Parameters<typeof requestThrough>[1] = { host }) =>
  requestThrough(port, { ...init, host: host.includes(":") ? host : `${host}:${port}`, path });
const jsonOf = (response: { body: string }) => JSON.parse(response.body) as Record<string, unknown>;
const nameOf = (build: BuildJson, kind: string) =>
  (build.preview_names as { kind: string; name: string; url: string }[]).find((name) => name.kind === kind)!;

describe("GET /builds/{build_id} with a gateway", () => {
  it("gives the build's name as preview_url and lists its names", () => {
    const build = started.main;
    expect(build.preview_url).toBe(`http://${build.build_id}.${DOMAIN}:${port}/`);
    expect(build.preview_names).toEqual([
      { kind: "build", name: `${build.build_id}.${DOMAIN}`, url: `http://${build.build_id}.${DOMAIN}:${port}/` },
      { kind: "branch", name: `main--demo.${DOMAIN}`, url: `http://main--demo.${DOMAIN}:${port}/` },
    ]);
  });
});

describe("the gateway (npm run gateway)", () => {
  it("serves each build's preview at its own name, and its branch's name", async () => {
    for (const build of Object.values(started)) {
      const byId = await through(`${build.build_id}.${DOMAIN}`, "/anything?x=1");
      expect(byId.status).toBe(200);
      expect(jsonOf(byId)).toMatchObject({ build_id: build.build_id, path: "/anything?x=1" });
      const byBranch = await through(nameOf(build, "branch").name);
      expect(jsonOf(byBranch).build_id).toBe(build.build_id);
    }
  });

  it("gives colliding branch names (topic/x, topic-x) two names, each leading to its own preview", async () => {
    const slash = nameOf(started["topic/x"], "branch").name;
    const dash = nameOf(started["topic-x"], "branch").name;
    expect(dash).toBe(`topic-x--demo.${DOMAIN}`);
    expect(slash).toMatch(new RegExp(`^topic-x-[0-9][a-z0-9]{5}--demo\\.${DOMAIN.replace(".", "\\.")}$`));
    expect(jsonOf(await through(slash)).build_id).toBe(started["topic/x"].build_id);
    expect(jsonOf(await through(dash)).build_id).toBe(started["topic-x"].build_id);
  });

  it("passes the client's address and scheme, and the name, as Odoo's proxy_mode reads them", async () => {
    const response = await through(`${started.main.build_id}.${DOMAIN}`, "/", {
      host: "",
      headers: {
        "X-Forwarded-For": "203.0.113.9",
        "X-Forwarded-Host": "evil.example.com",
        "X-Forwarded-Proto": "https",
        Forwarded: "for=203.0.113.9;host=evil.example.com",
      },
    });
    const seen = jsonOf(response) as { headers: Record<string, string>; url_root: string };
    expect(seen.headers).toMatchObject({
      host: `${started.main.build_id}.${DOMAIN}:${port}`,
      "x-forwarded-host": `${started.main.build_id}.${DOMAIN}:${port}`,
      "x-forwarded-proto": "http",
      "x-forwarded-for": "127.0.0.1",
      "x-real-ip": "127.0.0.1",
    });
    expect(seen.headers.forwarded).toBeUndefined();
    expect(seen.url_root).toBe(`http://${started.main.build_id}.${DOMAIN}:${port}/`);
    // The login page's links are built from them.
    const login = await through(`${started.main.build_id}.${DOMAIN}`, "/web/login");
    expect(login.body).toContain(`href="http://${started.main.build_id}.${DOMAIN}:${port}/web"`);
    expect(login.headers["set-cookie"]?.[0]).toMatch(/^session_id=[0-9a-f]{40}; HttpOnly; Path=\//);
  });

  it("carries a WebSocket upgrade on /websocket to the preview, both ways", async () => {
    const name = `${started["topic-x"].build_id}.${DOMAIN}:${port}`;
    const socket = new WebSocket(`ws://127.0.0.1:${port}/websocket`, {
      headers: { Host: name, Cookie: "session_id=0123456789012345678901234567890123456789" },
    });
    const messages: string[] = [];
    socket.on("message", (data) => messages.push(String(data)));
    await new Promise((resolve, reject) => {
      socket.once("open", resolve);
      socket.once("error", reject);
    });
    await waitFor("the greeting", async () => messages.length > 0, 5_000);
    // Quiet for a while, then a message: the connection is still there.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    socket.send("ping");
    await waitFor("the echo", async () => messages.length > 1, 5_000);
    socket.close();
    expect(JSON.parse(messages[0])).toEqual({ build_id: started["topic-x"].build_id, session: true });
    expect(messages[1]).toBe(`echo ${started["topic-x"].build_id}: ping`);
  });

  it("holds a long poll on /longpolling open until the preview answers", async () => {
    const sent = Date.now();
    const response = await through(`${started.main.build_id}.${DOMAIN}`, "/longpolling/poll?wait=4000");
    expect(response.status).toBe(200);
    expect(jsonOf(response)).toEqual({ build_id: started.main.build_id, waited_ms: 4000 });
    expect(Date.now() - sent).toBeGreaterThanOrEqual(3900);
  });

  it("passes POST bodies and the preview's own sessions per name", async () => {
    const host = `${started["topic/x"].build_id}.${DOMAIN}`;
    const first = await through(host, "/web/login");
    const cookie = /^(session_id=[0-9a-f]{40})/.exec(first.headers["set-cookie"]![0])![1];
    const signedIn = await through(host, "/web/login", {
      host: "",
      method: "POST",
      headers: { Cookie: cookie, "Content-Type": "application/x-www-form-urlencoded" },
      body: "login=ana%40example.com",
    });
    expect(signedIn.status).toBe(303);
    const home = await through(host, "/web", { host: "", headers: { Cookie: cookie } });
    expect(home.body).toContain("Signed in as ana@example.com");
  });

  it("answers 404 for a name that leads nowhere: a page for a browser, a problem otherwise", async () => {
    for (const name of [`nothing.${DOMAIN}`, `0000000000000000.${DOMAIN}`, `main--nosuch.${DOMAIN}`, DOMAIN]) {
      const page = await through(name, "/web", { host: "", headers: { Accept: "text/html,application/xhtml+xml" } });
      expect(page.status, name).toBe(404);
      expect(page.headers["content-type"]).toMatch(/^text\/html/);
      expect(page.body).toContain("No preview here");
      const problem = await through(name, "/web", { host: "", method: "POST", body: "x=1" });
      expect(problem.status, name).toBe(404);
      expect(problem.headers["content-type"]).toBe("application/problem+json");
      expect(jsonOf(problem)).toMatchObject({ status: 404, title: "No preview here" });
    }
  });

  it("shows its pages in Spanish to a browser whose first language is Spanish, its problems in English", async () => {
    const name = `nothing.${DOMAIN}`;
    const spanish = await through(name, "/web", {
      host: "",
      headers: { Accept: "text/html", "Accept-Language": "es-VE,es;q=0.9,en;q=0.8" },
    });
    expect(spanish.status).toBe(404);
    expect(spanish.body).toContain('<html lang="es">');
    expect(spanish.body).toContain("<h1>Aquí no hay ninguna vista previa</h1>");
    expect(spanish.body).toContain(`Ninguna vista previa se llama ${name}.`);
    expect(spanish.body).not.toContain("No preview");
    // English first, Spanish second: English.
    const english = await through(name, "/web", {
      host: "",
      headers: { Accept: "text/html", "Accept-Language": "en-US,es;q=0.9" },
    });
    expect(english.body).toContain('<html lang="en">');
    expect(english.body).toContain("<h1>No preview here</h1>");
    expect(english.body).toContain(`No preview is named ${name}.`);
    const problem = await through(name, "/web", { host: "", headers: { "Accept-Language": "es-VE" } });
    expect(jsonOf(problem)).toMatchObject({
      status: 404,
      title: "No preview here",
      // Followed by the live public names, for a program as for a person (gateway-names.test.ts).
      detail: expect.stringMatching(new RegExp(`^No preview is named ${name.replaceAll(".", "\\.")}\\. Live previews`)),
    });
  });

  it("makes a new build reachable at its name within 2 s of it running, and a branch name follow a rebuild", async () => {
    const branch = nameOf(started.main, "branch").name;
    expect(jsonOf(await through(branch)).build_id).toBe(started.main.build_id);
    const response = await builds.app.fetch(`/builds/${started.main.build_id}/rebuild`, {
      method: "POST",
      headers: builds.authorization,
    });
    expect(response.status).toBe(202);
    const rebuilt = (await response.json()) as BuildJson;
    // Until it runs, the branch's name stays with the running build.
    expect(jsonOf(await through(branch)).build_id).toBe(started.main.build_id);
    await builds.waitForStatus(rebuilt.build_id, ["running"], 60_000);
    const runningAt = Date.now();
    await waitFor(
      "the branch name to lead to the rebuild",
      async () => jsonOf(await through(branch)).build_id === rebuilt.build_id,
      5_000,
    );
    expect(Date.now() - runningAt).toBeLessThanOrEqual(2_000);
    expect(jsonOf(await through(`${rebuilt.build_id}.${DOMAIN}`)).build_id).toBe(rebuilt.build_id);
    started.rebuilt = rebuilt;
  });

  it("answers 410 for a destroyed build's name, linking its page, and never another preview", async () => {
    const build = started["topic-x"];
    const destroyed = await builds.app.fetch(`/builds/${build.build_id}`, {
      method: "DELETE",
      headers: builds.authorization,
    });
    expect([200, 202]).toContain(destroyed.status);
    await builds.waitForStatus(build.build_id, ["destroyed"]);
    const name = `${build.build_id}.${DOMAIN}`;
    const page = await waitFor(
      "the gateway to notice",
      async () => {
        const answer = await through(name, "/", { host: "", headers: { Accept: "text/html" } });
        return answer.status === 410 && answer;
      },
      3_000,
    );
    expect(page.body).toContain("This preview is gone");
    expect(page.body).toContain(`href="http://runbot.example.test/builds/${build.build_id}"`);
    const problem = await through(name, "/");
    expect(problem.status).toBe(410);
    expect(jsonOf(problem).detail).toContain(`http://runbot.example.test/builds/${build.build_id}`);
    // The branch's name too: its only build is gone.
    expect((await through(nameOf(build, "branch").name)).status).toBe(410);
  });

  it("serves a pull request's preview at pr-<n>--<alias>, across its pushes", async () => {
    const deliver = (payload: unknown) => {
      const body = JSON.stringify(payload);
      return builds.app.fetch("/hooks/demo", {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          "X-GitHub-Event": "pull_request",
          "X-GitHub-Delivery": crypto.randomUUID(),
          "X-Hub-Signature-256": `sha256=${hmacHex(SECRET, body)}`,
        },
        body,
      });
    };
    const name = `pr-7--demo.${DOMAIN}`;
    const first = await deliver(githubPullRequest("opened", 7, pushPullRequestHead(remote, "refs/pull/7/head", "one")));
    expect(first.status).toBe(202);
    const one = ((await first.json()) as { build: BuildJson }).build;
    const running = await builds.waitForStatus(one.build_id, ["running"], 60_000);
    expect(nameOf(running, "pull_request")).toEqual({ kind: "pull_request", name, url: `http://${name}:${port}/` });
    await waitFor("the pull request's name", async () => jsonOf(await through(name)).build_id === one.build_id, 5_000);
    const second = await deliver(
      githubPullRequest("synchronize", 7, pushPullRequestHead(remote, "refs/pull/7/head", "two")),
    );
    const two = ((await second.json()) as { build: BuildJson }).build;
    await builds.waitForStatus(two.build_id, ["running"], 60_000);
    await waitFor(
      "the name to follow the push",
      async () => jsonOf(await through(name)).build_id === two.build_id,
      5_000,
    );

    // The git host hears of the names: the commit's status links the build's preview, the comment the request's name.
    const success = await waitFor("the success status", async () =>
      github
        .requestsTo("/repos/acme/demo/statuses/")
        .find((request) => request.body.state === "success" && String(request.body.target_url).includes(two.build_id)),
    );
    expect(success.body.target_url).toBe(`http://${two.build_id}.${DOMAIN}:${port}/`);
    const comment = await waitFor("the comment", async () =>
      [...github.requests]
        .reverse()
        .find(
          (request) => /issues\/(7\/)?comments/.test(request.path) && String(request.body.body).includes(two.build_id),
        ),
    );
    expect(String(comment.body.body)).toContain(`the preview is running at http://${name}:${port}/`);
  });
});

describe("hostile requests at the gateway", () => {
  const proxied = (body: string) => body.includes('"build_id"') || body.includes("odoo-like");

  it("refuses Host headers outside the domain, IP literals, other ports, unicode and trailing dots with a 4xx", async () => {
    const id = started["topic/x"].build_id;
    for (const host of [
      "example.com",
      `127.0.0.1:${port}`,
      "127.0.0.1",
      `[::1]:${port}`,
      `${id}.${DOMAIN}.evil.com:${port}`,
      `${id}.${DOMAIN}:1`,
      `${id}.${DOMAIN}:${port}0`,
      `${id}.${DOMAIN}.:${port}`,
      `${id}.${DOMAIN}..:${port}`,
      `${id}.${DOMAIN}:${port}:${port}`,
      `b\u00fccher.${DOMAIN}:${port}`,
      `${"a".repeat(64)}.${DOMAIN}:${port}`,
      `${"a.".repeat(120)}${DOMAIN}:${port}`,
      `${"a".repeat(5000)}.${DOMAIN}:${port}`,
      `../${id}.${DOMAIN}:${port}`,
      `${id}.${DOMAIN}/..:${port}`,
      `${id}%2e${DOMAIN}:${port}`,
      `${id}.${DOMAIN}%0d%0aX-Injected: 1:${port}`,
      `${id}.${DOMAIN}\tx:${port}`,
    ]) {
      const response = await requestThrough(port, { host }).catch((error: Error) => ({
        status: 0,
        headers: {},
        body: error.message,
      }));
      expect(response.status, JSON.stringify(host)).toBeGreaterThanOrEqual(400);
      expect(response.status, JSON.stringify(host)).toBeLessThan(500);
      expect(proxied(response.body), JSON.stringify(host)).toBe(false);
    }
  });

  it("refuses raw requests no client should send: two Host headers, UTF-8 names, traversal, no Host", async () => {
    const id = started["topic/x"].build_id;
    const name = `${id}.${DOMAIN}:${port}`;
    for (const request of [
      `GET / HTTP/1.1\r\nHost: ${name}\r\nHost: evil.example.com\r\nConnection: close\r\n\r\n`,
      `GET / HTTP/1.1\r\nHost: nothing.${DOMAIN}:${port}\r\nHost: ${name}\r\nConnection: close\r\n\r\n`,
      `GET / HTTP/1.1\r\nHost: b\xc3\xbccher.${DOMAIN}:${port}\r\nConnection: close\r\n\r\n`,
      `GET / HTTP/1.1\r\nHost: ${id}\x00.${DOMAIN}:${port}\r\nConnection: close\r\n\r\n`,
      `GET / HTTP/1.1\r\nConnection: close\r\n\r\n`,
      `GET / HTTP/1.0\r\n\r\n`,
      `GET http://evil.example.com/ HTTP/1.1\r\nHost: ${name}\r\nConnection: close\r\n\r\n`,
      `GET /../../../etc/passwd HTTP/1.1\r\nHost: nothing.${DOMAIN}:${port}\r\nConnection: close\r\n\r\n`,
      `GET /__gateway/resolve HTTP/1.1\r\nHost: ${name}\r\nConnection: close\r\n\r\n`,
    ]) {
      const answer = await rawRequest(port, request);
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(answer)?.[1]);
      expect(status, JSON.stringify(request)).toBeGreaterThanOrEqual(400);
      expect(status, JSON.stringify(request)).toBeLessThan(500);
      expect(proxied(answer), JSON.stringify(request)).toBe(false);
    }
  });

  it("keeps a traversal in the path on the preview the name leads to", async () => {
    const id = started["topic/x"].build_id;
    const answer = await rawRequest(
      port,
      `GET /a/../../b HTTP/1.1\r\nHost: ${id}.${DOMAIN}:${port}\r\nConnection: close\r\n\r\n`,
    );
    // nginx resolves the dots itself; the request stays with this build.
    expect(answer).toMatch(/^HTTP\/1\.1 (200|400) /);
    if (answer.startsWith("HTTP/1.1 200")) expect(answer).toContain(`"build_id":"${id}"`);
  });

  it("never answers the resolver's own path to a client", async () => {
    const response = await through(`${started["topic/x"].build_id}.${DOMAIN}`, "/__gateway/resolve");
    expect(response.status).toBe(404);
    expect(response.headers["x-gateway-upstream"]).toBeUndefined();
  });
});

describe("wake on visit", () => {
  const sleep = async (buildId: string) => {
    const response = await builds.app.fetch(`/builds/${buildId}/sleep`, {
      method: "POST",
      headers: builds.authorization,
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as BuildJson).status).toBe("sleeping");
  };
  const startsOf = async (buildId: string) => {
    const log = (await (await builds.get(`/builds/${buildId}/logs?stage=start`)).json()) as { content: string };
    return log.content.split(`odoo-like preview of ${buildId} on`).length - 1;
  };

  it("wakes a sleeping preview once for a hundred visits at once, then serves it at the same URL", async () => {
    const build = started["topic/x"];
    await sleep(build.build_id);
    expect(await startsOf(build.build_id)).toBe(1);
    const name = `${build.build_id}.${DOMAIN}`;
    await waitFor("the gateway to see it asleep", async () => (await through(name)).status === 503, 3_000);
    // Every other visitor reads Spanish first.
    const spanish = (index: number) => index % 2 === 1;
    const visits = await Promise.all(
      Array.from({ length: 100 }, (_, index) =>
        through(name, "/web", {
          host: "",
          headers: { Accept: "text/html", ...(spanish(index) ? { "Accept-Language": "es-VE,es;q=0.9" } : {}) },
        }),
      ),
    );
    const waiting = visits.filter((visit) => visit.status === 503);
    expect(waiting.length).toBeGreaterThan(0);
    expect(waiting.filter((visit) => visit.body.includes("Waking this preview up")).length).toBeGreaterThan(0);
    expect(
      waiting.filter((visit) => visit.body.includes("<h1>Despertando esta vista previa</h1>")).length,
    ).toBeGreaterThan(0);
    for (const [index, visit] of visits.entries()) {
      if (visit.status !== 503) continue;
      // Waking; or, once it woke, "starting" for the second nginx keeps the answer it had.
      if (spanish(index)) {
        expect(visit.body).toContain('<html lang="es">');
        expect(visit.body).toMatch(
          /El build \w+ estaba dormido y está arrancando de nuevo; esta página se recarga|El build \w+ está arrancando/,
        );
      } else {
        expect(visit.body).toContain('<html lang="en">');
        expect(visit.body).toMatch(/Waking this preview up|is starting/);
      }
      expect(visit.body).toMatch(/<meta http-equiv="refresh" content="[12]">/);
      expect(visit.headers["retry-after"]).toMatch(/^[12]$/);
    }
    // Every other visit came once it answered again: its preview, not a page.
    for (const visit of visits.filter((v) => v.status !== 503)) expect(visit.status).toBe(303);
    // A program gets the problem: waking, or starting once the wake has moved the build on.
    const program = await through(name, "/");
    if (program.status === 503) {
      expect(jsonOf(program)).toMatchObject({ status: 503 });
      expect(jsonOf(program).detail).toMatch(/was asleep and is starting again|is starting/);
    }
    await waitFor(
      "the preview to answer again",
      async () => jsonOf(await through(name)).build_id === build.build_id,
      60_000,
    );
    expect((await builds.waitForStatus(build.build_id, ["running"])).status).toBe("running");
    expect(await startsOf(build.build_id)).toBe(2);
  });

  it("lets one client address wake gateway.wakes_per_hour previews an hour, then answers 429 and wakes nothing", async () => {
    const build = started["topic/x"];
    await sleep(build.build_id);
    const name = `${build.build_id}.${DOMAIN}`;
    const refused = await waitFor(
      "the limit",
      async () => {
        const visit = await through(name, "/", { host: "", headers: { Accept: "text/html" } });
        return visit.status === 429 && visit;
      },
      3_000,
    );
    expect(refused.body).toContain("Too many wakes");
    expect(refused.body).toContain(`href="http://runbot.example.test/builds/${build.build_id}"`);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(((await (await builds.get(`/builds/${build.build_id}`)).json()) as BuildJson).status).toBe("sleeping");
    expect(await startsOf(build.build_id)).toBe(2);
  });

  it("never wakes a destroyed build", async () => {
    const { build_id } = started["topic-x"];
    await builds.app.fetch(`/builds/${build_id}`, { method: "DELETE", headers: builds.authorization });
    await builds.waitForStatus(build_id, ["destroyed"]);
    await waitFor(
      "the gateway to notice",
      async () => (await through(`${build_id}.${DOMAIN}`, "/")).status === 410,
      3_000,
    );
    expect(await startsOf(build_id)).toBe(1);
  });
});
