import crypto from "node:crypto";
import net from "node:net";
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
} from "../support/auto-builds";
import {
  type BuildJson,
  type BuildsApp,
  fixtureConfig,
  makeBuildsFixture,
  startBuildsApp,
  tearDownBuilds,
} from "../support/builds";

// A replayed, validly signed "branch deleted" webhook must not destroy the live builds of a branch that still
// exists nor keep the same commit from being built again; POST /hooks/{alias} must look at the alias and the
// signature before it reads an unauthenticated body, and bound how many it reads at once.
const SECRET = `s3cret-${crypto.randomUUID()}`;
// Longer than the holders of the slots below wait for an answer, shorter than the default 10 s.
const BODY_TIMEOUT_MS = 4_000;
let builds: BuildsApp;
let hooked: Remote;

beforeAll(async () => {
  const fixture = makeBuildsFixture((partial) =>
    fixtureConfig(partial, {
      extraRepositories: `
  - alias: hooked
    url: ./hooked.git
    modules_path: addons
    module_manifest: manifest.json
    webhook_secret: ${SECRET}
    auto_build: { branches: ["topic/*"], modules: [base_mod] }
`,
    }),
  );
  hooked = makeRemote(fixture, "hooked");
  builds = await startBuildsApp(fixture, { HOOK_BODY_TIMEOUT_MS: String(BODY_TIMEOUT_MS) });
});
afterAll(() => tearDownBuilds(builds));

/** A GitHub delivery with a chosen delivery id, signed. */
function deliver(payload: unknown, deliveryId: string, event = "push") {
  const body = JSON.stringify(payload);
  return builds.app.fetch("/hooks/hooked", {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      "X-GitHub-Event": event,
      "X-GitHub-Delivery": deliveryId,
      "X-Hub-Signature-256": `sha256=${hmacHex(SECRET, body)}`,
    },
    body,
  });
}

describe("replayed and stale webhooks", () => {
  it("a 'branch deleted' event for a branch that still exists destroys nothing", async () => {
    const sha = pushCommit(hooked, "topic/alive", "a feature that stays");
    const started = (await (await deliverGitHub(builds, "hooked", githubPush("topic/alive", sha), SECRET)).json())
      .build as BuildJson;
    await builds.waitForStatus(started.build_id, ["running"]);
    // A deletion event (validly signed: say, captured earlier and replayed) while the branch is still there.
    const response = await deliverGitHub(
      builds,
      "hooked",
      githubPush("topic/alive", sha, { before: sha, deleted: true }),
      SECRET,
    );
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      result: "nothing_to_do",
      branch: "topic/alive",
      commit_sha: sha,
      build_ids: [],
    });
    expect((await (await builds.get(`/builds/${started.build_id}`)).json()).status).toBe("running");
  });

  it("a redelivery of a delivery id already taken in is answered 'already_processed' and not acted on", async () => {
    const sha = pushCommit(hooked, "topic/replayed", "delivered twice");
    const deliveryId = crypto.randomUUID();
    const first = await deliver(githubPush("topic/replayed", sha), deliveryId);
    expect(first.status).toBe(202);
    const build = (await first.json()).build as BuildJson;
    await builds.waitForStatus(build.build_id, ["running"]);
    // The branch is really deleted, and its deletion delivered and acted on.
    git(hooked.work, "push", "--quiet", "origin", "--delete", "topic/replayed");
    const deletionId = crypto.randomUUID();
    const deleted = await deliver(githubPush("topic/replayed", sha, { before: sha, deleted: true }), deletionId);
    expect(deleted.status).toBe(202);
    await builds.waitForStatus(build.build_id, ["destroyed"], 15_000);
    // The branch comes back at the same commit: the replayed deletion must not count as news.
    git(hooked.work, "push", "--quiet", "origin", `${sha}:refs/heads/topic/replayed`);
    const replayed = await deliver(githubPush("topic/replayed", sha, { before: sha, deleted: true }), deletionId);
    expect(replayed.status).toBe(200);
    expect(await replayed.json()).toMatchObject({ result: "already_processed", build_ids: [] });
    const again = await deliver(githubPush("topic/replayed", sha), deliveryId);
    expect(again.status).toBe(200);
    expect((await again.json()).result).toBe("already_processed");
    const ofBranch = (await listAllBuilds(builds)).filter(
      (candidate) => (candidate.repositories as { ref: string }[])[0].ref === "topic/replayed",
    );
    expect(ofBranch.map((candidate) => candidate.build_id)).toEqual([build.build_id]);
  });

  it("a signed body sent again under a new delivery id is answered 'already_processed', not taken again", async () => {
    const sha = pushCommit(hooked, "topic/replayed-new-id", "delivered under two ids");
    const body = githubPush("topic/replayed-new-id", sha);
    const first = await deliver(body, crypto.randomUUID());
    expect(first.status).toBe(202);
    const build = (await first.json()).build as BuildJson;
    const replayed = await deliver(body, crypto.randomUUID());
    expect(replayed.status).toBe(200);
    expect(await replayed.json()).toMatchObject({ result: "already_processed", build_ids: [] });
    await builds.waitForStatus(build.build_id, ["running"]);
  });

  it("a delivery that could not be carried out is acted on when the host delivers it again", async () => {
    const deliveryId = crypto.randomUUID();
    const unreadable = await builds.app.fetch("/hooks/hooked", {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        "X-GitHub-Event": "push",
        "X-GitHub-Delivery": deliveryId,
        "X-Hub-Signature-256": `sha256=${hmacHex(SECRET, "{")}`,
      },
      body: "{",
    });
    expect(unreadable.status).toBe(400);
    const sha = pushCommit(hooked, "topic/retried", "delivered again after a failure");
    const retried = await deliver(githubPush("topic/retried", sha), deliveryId);
    expect(retried.status).toBe(202);
    expect((await retried.json()).result).toBe("started");
  });
});

/**
 * Sends a request's head with a Content-Length and no body, then waits for the status line. Resolves with
 * the status, or with null when nothing came back within `waitMs` (the server is waiting for the body).
 */
function sendHeadOnly(pathname: string, headers: Record<string, string>, contentLength: number, waitMs = 10_000) {
  const socket = net.connect(Number(new URL(builds.app.baseUrl).port), "127.0.0.1");
  const head = [
    `POST ${pathname} HTTP/1.1`,
    "Host: 127.0.0.1",
    `Content-Length: ${contentLength}`,
    "Content-Type: application/json",
  ]
    .concat(Object.entries(headers).map(([name, value]) => `${name}: ${value}`))
    .join("\r\n");
  socket.write(`${head}\r\n\r\n`);
  const answer = new Promise<{ status: number | null; text: string }>((resolve) => {
    let text = "";
    const timer = setTimeout(() => resolve({ status: null, text }), waitMs);
    socket.on("data", (chunk) => {
      text += chunk.toString("latin1");
      const match = /^HTTP\/1\.1 (\d{3})/.exec(text);
      if (match && text.includes("\r\n\r\n")) {
        clearTimeout(timer);
        resolve({ status: Number(match[1]), text });
      }
    });
    socket.on("error", () => {});
  });
  return { socket, answer };
}

describe("unauthenticated hook bodies", () => {
  const signed = { "X-GitHub-Event": "push", "X-Hub-Signature-256": `sha256=${"0".repeat(64)}` };

  it("an unknown alias answers 404 before the body is sent", async () => {
    const { socket, answer } = sendHeadOnly("/hooks/no-such-repository", signed, 4 * 1024 * 1024);
    const { status, text } = await answer;
    socket.destroy();
    expect(status).toBe(404);
    expect(text).toContain("application/problem+json");
  });

  it("a repository without a webhook secret answers 404, and an unsigned request 401, before the body is sent", async () => {
    const noSecret = sendHeadOnly("/hooks/demo", signed, 4 * 1024 * 1024);
    expect((await noSecret.answer).status).toBe(404);
    noSecret.socket.destroy();
    const unsigned = sendHeadOnly("/hooks/hooked", { "X-GitHub-Event": "push" }, 4 * 1024 * 1024);
    expect((await unsigned.answer).status).toBe(401);
    unsigned.socket.destroy();
  });

  it("at most 8 bodies are read at once: the next sender gets 503 with Retry-After, and a slot frees when a sender goes", async () => {
    const holders = Array.from({ length: 8 }, () => sendHeadOnly("/hooks/hooked", signed, 1024 * 1024, 1_500));
    // They wait for their bodies: no answer.
    for (const holder of holders) expect((await holder.answer).status).toBeNull();
    const refused = sendHeadOnly("/hooks/hooked", signed, 1024 * 1024);
    const { status, text } = await refused.answer;
    refused.socket.destroy();
    expect(status).toBe(503);
    expect(text).toMatch(/retry-after: 5/i);
    for (const holder of holders) holder.socket.destroy();
    // The slots come back once their senders are gone.
    let answered: Response | undefined;
    for (let attempt = 0; attempt < 50; attempt++) {
      answered = await deliver({ zen: "Keep it logically awesome." }, crypto.randomUUID(), "ping");
      if (answered.status !== 503) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(answered!.status).toBe(200);
    expect((await answered!.json()).result).toBe("pong");
  });

  it("a body that does not arrive within HOOK_BODY_TIMEOUT_MS is refused (408) and frees its slot", async () => {
    const sent = Date.now();
    const slow = sendHeadOnly("/hooks/hooked", signed, 1024, BODY_TIMEOUT_MS + 10_000);
    slow.socket.write("{");
    const { status } = await slow.answer;
    slow.socket.destroy();
    expect(status).toBe(408);
    // The server's setting, not the default (10 s).
    expect(Date.now() - sent).toBeGreaterThanOrEqual(BODY_TIMEOUT_MS - 100);
    expect(Date.now() - sent).toBeLessThan(10_000);
    const ping = await deliver({ zen: "Non-blocking is better than blocking." }, crypto.randomUUID(), "ping");
    expect(ping.status).toBe(200);
  });
});
