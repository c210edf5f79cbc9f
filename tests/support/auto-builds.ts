import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { BuildJson, BuildsApp, BuildsFixture } from "./builds";

/**
 * Followed repositories for the automatic-build tests: a bare repository (what a host serves, and what the
 * builds configuration points at) made from the builds fixture's repository, and a working clone to commit in
 * and push from. Webhooks are signed here the way each host signs them.
 */
export interface Remote {
  bare: string;
  work: string;
}

export function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", ["-c", "user.name=Ana Pérez", "-c", "user.email=ana@example.com", ...args], {
    cwd,
    encoding: "utf8",
  }).trim();
}

/** A bare copy of the fixture's repository at <root>/<name>.git, with a working clone at <root>/<name>-work. */
export function makeRemote(fixture: Pick<BuildsFixture, "root" | "repository">, name: string): Remote {
  const bare = path.join(fixture.root, `${name}.git`);
  const work = path.join(fixture.root, `${name}-work`);
  git(fixture.root, "clone", "--quiet", "--bare", fixture.repository, bare);
  git(fixture.root, "clone", "--quiet", bare, work);
  return { bare, work };
}

/** Commits a change on `branch` (created from the current head when new), pushes it and returns the commit. */
export function pushCommit(
  remote: Remote,
  branch: string,
  subject: string,
  files: Record<string, string> = {},
): string {
  const branches = git(remote.work, "branch", "--list", branch);
  git(remote.work, "checkout", "--quiet", ...(branches ? [branch] : ["-b", branch]));
  const written = Object.keys(files).length > 0 ? files : { [`notes/${crypto.randomUUID()}.txt`]: subject };
  for (const [file, content] of Object.entries(written)) {
    fs.mkdirSync(path.dirname(path.join(remote.work, file)), { recursive: true });
    fs.writeFileSync(path.join(remote.work, file), content);
  }
  git(remote.work, "add", ".");
  git(remote.work, "commit", "--quiet", "-m", subject);
  git(remote.work, "push", "--quiet", "origin", branch);
  return git(remote.work, "rev-parse", "HEAD");
}

/** A push event as GitHub sends it (the fields that matter, plus some that do not). */
export function githubPush(
  branch: string,
  after: string,
  options: { before?: string; deleted?: boolean; pusher?: string } = {},
) {
  return {
    ref: `refs/heads/${branch}`,
    before: options.before ?? "0".repeat(40),
    after: options.deleted ? "0".repeat(40) : after,
    created: false,
    deleted: options.deleted ?? false,
    forced: false,
    commits: [],
    repository: { full_name: "acme/addons", default_branch: "main" },
    pusher: { name: options.pusher ?? "anaperez", email: "ana@example.com" },
    sender: { login: options.pusher ?? "anaperez" },
  };
}

/** HMAC-SHA256 of the exact body bytes, hex: what GitHub (with `sha256=`) and Gitea send. */
export function hmacHex(secret: string, body: string): string {
  return crypto.createHmac("sha256", secret).update(body, "utf8").digest("hex");
}

/** POSTs a GitHub delivery of `payload` (or of a raw body string), signed with `secret` unless it is null. */
export function deliverGitHub(
  builds: BuildsApp,
  alias: string,
  payload: unknown,
  secret: string | null,
  event = "push",
) {
  const body = typeof payload === "string" ? payload : JSON.stringify(payload);
  const headers: Record<string, string> = {
    "Content-Type": "application/json",
    "X-GitHub-Event": event,
    "X-GitHub-Delivery": crypto.randomUUID(),
    "User-Agent": "GitHub-Hookshot/044aadd",
  };
  if (secret !== null) headers["X-Hub-Signature-256"] = `sha256=${hmacHex(secret, body)}`;
  return builds.app.fetch(`/hooks/${alias}`, { method: "POST", headers, body });
}

/** Every build of the service (newest first), with its stages left out. */
export async function listAllBuilds(builds: BuildsApp): Promise<BuildJson[]> {
  return ((await (await builds.get("/builds?limit=100")).json()) as { builds: BuildJson[] }).builds;
}

export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined | null | false>,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
