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
import { type BuilderPair, startBuilderPair } from "../support/cluster";

/**
 * PostgreSQL only (project integration-postgresql): automatic builds with two builder instances. "Is there a
 * build of this commit?" then "make one" runs under a lock held across the cluster (lib/cluster/locks.ts), so the
 * same push noticed by both instances at once (two webhooks of one push, one landing on each) makes one build.
 */
const SECRET = `s3cret-${crypto.randomUUID()}`;
let pair: BuilderPair;
let hooked: Remote;

beforeAll(async () => {
  pair = await startBuilderPair({
    betaSlots: 1,
    env: { AUTO_TEST_HOOK_SECRET: SECRET },
    extraRepositories: `
  - alias: hooked
    url: ./hooked.git
    modules_path: addons
    module_manifest: manifest.json
    webhook_secret_env: AUTO_TEST_HOOK_SECRET
    auto_build: { branches: ["topic/*"], modules: [base_mod], ttl_seconds: 600 }
`,
    prepare: (fixture) => {
      hooked = makeRemote(fixture, "hooked");
    },
  });
});
afterAll(() => pair?.stop());

describe("a push noticed by two instances at once", () => {
  it("makes one automatic build per commit, whichever instance noticed it first", { timeout: 120_000 }, async () => {
    const commits: string[] = [];
    for (let round = 0; round < 4; round++) {
      const sha = pushCommit(hooked, `topic/round-${round}`, `round ${round}`);
      commits.push(sha);
      const payload = githubPush(`topic/round-${round}`, sha);
      const answers = await Promise.all(
        [pair.alpha, pair.beta].map((instance) => deliverGitHub(instance, "hooked", payload, SECRET)),
      );
      for (const answer of answers) expect(answer.status).toBeLessThan(300);
    }
    const builds = await waitFor("the automatic builds", async () => {
      const list = (await listAllBuilds(pair.alpha)).filter((build) => build.trigger !== "manual");
      return list.length >= commits.length ? list : undefined;
    });
    const perCommit = commits.map(
      (sha) => builds.filter((build) => (build.repositories as { commit_sha: string }[])[0].commit_sha === sha).length,
    );
    expect(perCommit).toEqual([1, 1, 1, 1]);
  });
});
