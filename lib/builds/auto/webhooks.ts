import crypto from "node:crypto";
import { badRequest, HttpProblem, notFound, serviceUnavailable } from "../../http/problem";
import { type BuildsConfig, getBuildsConfig, type RepositoryConfig } from "../config";
import { resolveBranch, resolveRef, syncMirror } from "../git/mirrors";
import { refProblem } from "../names";
import type { HookResultView } from "../schemas";
import { presentBuild } from "../service";
import { claimDelivery, deliveryIdOf, deliveryKeysOf } from "./deliveries";
import { isPullRequestEvent, receivePullRequest } from "./pull-requests";
import { followsBranch, forgetBranch, noticeBranchHead } from "./service";

/**
 * POST /hooks/{alias}: push and pull request events from GitHub, GitLab and Gitea/Forgejo (pull requests:
 * ./pull-requests.ts). The signature (or GitLab's token) is
 * checked against the repository's secret over the raw body, before anything of the body is read.
 */
type Provider = "github" | "gitlab" | "gitea";

/**
 * Payloads larger than this are refused (413) before they are read in full. GitHub lists at most 20 commits
 * in a push event, so pushes stay far below it; the API's general MAX_BODY_BYTES would be too tight.
 */
export const MAX_HOOK_BODY_BYTES = 5 * 1024 * 1024;
const ZERO_SHA = /^0+$/;
const RETRY_AFTER_SECONDS = 30;

export interface HookAnswer {
  status: 200 | 202;
  body: HookResultView;
}

function unauthorizedHook(detail: string) {
  // No WWW-Authenticate: the challenge of a signed webhook is not a bearer token.
  return new HttpProblem(401, "Unauthorized", detail);
}

/**
 * What can be checked before a byte of the body is read: the repository exists and takes
 * webhooks (404), and the request carries a signature or token at all (401); GitLab's token, which does not
 * depend on the body, is checked in full. Returns the repository's secret.
 */
export function checkHookBeforeBody(alias: string, headers: Headers): string {
  const repository = getBuildsConfig().repositories.find((candidate) => candidate.alias === alias);
  if (!repository)
    throw notFound(`There is no repository ${JSON.stringify(alias.slice(0, 80))} in the builds configuration.`);
  if (repository.webhookSecret === null) {
    throw notFound(`The repository "${alias}" takes no webhooks: it has no webhook_secret or webhook_secret_env.`);
  }
  if (headers.has("x-gitlab-token")) verifySignature(headers, Buffer.alloc(0), repository.webhookSecret);
  else if (!["x-gitea-signature", "x-forgejo-signature", "x-hub-signature-256"].some((name) => headers.has(name))) {
    throw unauthorizedHook(UNSIGNED);
  }
  return repository.webhookSecret;
}

const UNSIGNED =
  "The request is not signed: send X-Hub-Signature-256 (GitHub), X-Gitlab-Token (GitLab) or X-Gitea-Signature (Gitea, Forgejo).";

export async function receiveHook(alias: string, headers: Headers, body: Buffer): Promise<HookAnswer> {
  const config = getBuildsConfig();
  const secret = checkHookBeforeBody(alias, headers);
  const repository = config.repositories.find((candidate) => candidate.alias === alias)!;
  const provider = verifySignature(headers, body, secret);
  const answer = (
    status: 200 | 202,
    result: HookResultView["result"],
    detail: string,
    extra: Partial<HookResultView> = {},
  ): HookAnswer => ({
    status,
    body: {
      result,
      detail,
      repository: alias,
      branch: null,
      pull_request: null,
      commit_sha: null,
      build: null,
      build_ids: [],
      ...extra,
    },
  });
  // A redelivery (or a replay, under its id or another) of a delivery taken in before is answered, not acted on again.
  const deliveryId = deliveryIdOf(headers);
  const delivery = await claimDelivery(alias, deliveryKeysOf(headers, body));
  if (!delivery.fresh) {
    return answer(
      200,
      "already_processed",
      `This delivery (${deliveryId ?? "its body"}) was taken in before; it is not acted on again.`,
    );
  }
  try {
    return await actOnEvent(config, repository, provider, headers, body, answer);
  } catch (error) {
    // Not carried out: the host's redelivery of it must be acted on.
    await delivery.release().catch(() => {});
    throw error;
  }
}

type Answer = (
  status: 200 | 202,
  result: HookResultView["result"],
  detail: string,
  extra?: Partial<HookResultView>,
) => HookAnswer;

async function actOnEvent(
  config: BuildsConfig,
  repository: RepositoryConfig,
  provider: Provider,
  headers: Headers,
  body: Buffer,
  answer: Answer,
): Promise<HookAnswer> {
  const alias = repository.alias;
  const event = eventOf(provider, headers);
  if (event === "ping") return answer(200, "pong", "The webhook is set up: its signature matches.");
  if (isPullRequestEvent(provider, event)) {
    const reply = await receivePullRequest(repository, provider, readPayload(provider, headers, body));
    return answer(reply.status, reply.result, reply.detail, reply.extra);
  }
  if (event !== "push")
    return answer(200, "nothing_to_do", `The event ${JSON.stringify(event ?? "(none)")} is not a push; ignored.`);

  const push = readPush(provider, headers, body);
  if (!push.ref.startsWith("refs/heads/")) {
    return answer(200, "nothing_to_do", `${push.ref} is not a branch; only branch pushes start builds.`);
  }
  const branch = push.ref.slice("refs/heads/".length);
  const problem = refProblem(branch);
  if (problem)
    throw badRequest(`The pushed branch name is not accepted: it ${problem}.`, [
      { field: "body.ref", message: problem },
    ]);
  const about = { branch, commit_sha: push.deleted ? null : push.after };
  if (!followsBranch(repository, branch)) {
    return answer(200, "nothing_to_do", `The branch "${branch}" is not followed by auto_build.`, about);
  }

  if (push.deleted) {
    // Believed only from the repository itself: a replayed or late deletion must not destroy the builds of a
    // branch that exists (and whose commit, already built, would not be built again).
    if (!(await syncMirror(config, repository))) {
      throw serviceUnavailable(
        `The mirror of "${alias}" could not be fetched; deliver the event again later.`,
        RETRY_AFTER_SECONDS,
      );
    }
    const head = await resolveBranch(config, alias, branch);
    if (head) {
      return answer(
        200,
        "nothing_to_do",
        `The branch "${branch}" still exists in the repository (at ${head.slice(0, 12)}); its builds stay.`,
        {
          branch,
          commit_sha: head,
        },
      );
    }
    const { buildIds, done } = await forgetBranch(repository, branch);
    // Destroying can take seconds (stages get up to 10 s to stop); the sender is answered at once.
    void done;
    if (buildIds.length === 0)
      return answer(200, "nothing_to_do", `The branch "${branch}" was deleted; it had no live automatic build.`, about);
    return answer(202, "destroying", `The branch "${branch}" was deleted: destroying its automatic builds.`, {
      ...about,
      build_ids: buildIds,
    });
  }

  if (!(await syncMirror(config, repository))) {
    throw serviceUnavailable(
      `The mirror of "${alias}" could not be fetched; deliver the event again later.`,
      RETRY_AFTER_SECONDS,
    );
  }
  // The branch as it is now: a late delivery of an older push builds the newest commit (or nothing new).
  const head = await resolveRef(config, alias, branch);
  if (!head) return answer(200, "nothing_to_do", `The branch "${branch}" no longer exists in the repository.`, about);
  const outcome = await noticeBranchHead(repository, branch, head, "webhook", push.pusher);
  const noticed = { branch, commit_sha: head };
  switch (outcome.result) {
    case "started":
      return answer(202, "started", outcome.detail, {
        ...noticed,
        build: await presentBuild(outcome.build),
        build_ids: [outcome.build.id],
      });
    case "pending":
      return answer(202, "pending", outcome.detail, noticed);
    case "nothing_to_do":
      return answer(200, "nothing_to_do", outcome.detail, { ...noticed, build_ids: outcome.buildIds });
  }
}

/**
 * Which host sent the request, checked against the secret; 401 otherwise. Gitea and Forgejo also send
 * GitHub's headers, so they are recognized first by their own.
 */
function verifySignature(headers: Headers, body: Buffer, secret: string): Provider {
  const gitlabToken = headers.get("x-gitlab-token");
  if (gitlabToken !== null) {
    if (!safeEqual(sha256(gitlabToken), sha256(secret)))
      throw unauthorizedHook("The X-Gitlab-Token does not match the repository's webhook secret.");
    return "gitlab";
  }
  const hmac = crypto.createHmac("sha256", secret).update(body).digest("hex");
  const gitea = headers.get("x-gitea-signature") ?? headers.get("x-forgejo-signature");
  if (gitea !== null) {
    if (!safeEqual(Buffer.from(gitea.trim().toLowerCase()), Buffer.from(hmac))) {
      throw unauthorizedHook(
        "The X-Gitea-Signature is not the HMAC-SHA256 of the body with the repository's webhook secret.",
      );
    }
    return "gitea";
  }
  const github = headers.get("x-hub-signature-256");
  if (github !== null) {
    if (!safeEqual(Buffer.from(github.trim().toLowerCase()), Buffer.from(`sha256=${hmac}`))) {
      throw unauthorizedHook(
        "The X-Hub-Signature-256 is not the HMAC-SHA256 of the body with the repository's webhook secret.",
      );
    }
    return "github";
  }
  throw unauthorizedHook(UNSIGNED);
}

function sha256(value: string): Buffer {
  return crypto.createHash("sha256").update(value).digest();
}

/** Constant time for equal lengths; the length of a hex digest is no secret. */
function safeEqual(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}

/** The event's kind: "push", "ping" or the host's own name for anything else (null when it says none). */
function eventOf(provider: Provider, headers: Headers): string | null {
  if (provider === "gitlab") {
    const event = headers.get("x-gitlab-event");
    return event === "Push Hook" ? "push" : event;
  }
  if (provider === "gitea")
    return headers.get("x-gitea-event") ?? headers.get("x-forgejo-event") ?? headers.get("x-github-event");
  return headers.get("x-github-event");
}

interface Push {
  ref: string;
  after: string;
  deleted: boolean;
  pusher: string | null;
}

/** The fields of a push payload the service needs; 400 naming the field when they are missing or malformed. */
function readPush(provider: Provider, headers: Headers, body: Buffer): Push {
  const fields = readPayload(provider, headers, body);
  if (typeof fields.ref !== "string" || fields.ref.length === 0 || fields.ref.length > 300) {
    throw badRequest("The push payload has no `ref` (such as refs/heads/main).", [
      { field: "body.ref", message: "must be a ref name" },
    ]);
  }
  if (typeof fields.after !== "string" || !/^([0-9a-f]{40}|[0-9a-f]{64})$/.test(fields.after)) {
    throw badRequest("The push payload's `after` must be a full commit id.", [
      { field: "body.after", message: "must be 40 or 64 hex digits" },
    ]);
  }
  return {
    ref: fields.ref,
    after: fields.after,
    deleted: fields.deleted === true || ZERO_SHA.test(fields.after),
    pusher: pusherOf(provider, fields),
  };
}

/** The payload as a JSON object; 400 when it is not one. */
function readPayload(provider: Provider, headers: Headers, body: Buffer): Record<string, unknown> {
  let payload: unknown;
  try {
    let text = body.toString("utf8");
    // GitHub can be set to send application/x-www-form-urlencoded, with the JSON in `payload`.
    if (provider === "github" && (headers.get("content-type") ?? "").startsWith("application/x-www-form-urlencoded")) {
      text = new URLSearchParams(text).get("payload") ?? "";
    }
    payload = JSON.parse(text);
  } catch {
    throw badRequest("The webhook payload is not valid JSON.", [{ field: "body", message: "not valid JSON" }]);
  }
  if (typeof payload !== "object" || payload === null || Array.isArray(payload)) {
    throw badRequest("The webhook payload must be a JSON object.", [{ field: "body", message: "must be an object" }]);
  }
  return payload as Record<string, unknown>;
}

function pusherOf(provider: Provider, fields: Record<string, unknown>): string | null {
  const pick = (value: unknown, ...keys: string[]) => {
    if (typeof value !== "object" || value === null) return null;
    for (const key of keys) {
      const candidate = (value as Record<string, unknown>)[key];
      if (typeof candidate === "string" && candidate.trim() !== "") return candidate.trim();
    }
    return null;
  };
  const name =
    provider === "gitlab"
      ? pick(fields, "user_username", "user_name")
      : provider === "gitea"
        ? (pick(fields.pusher, "login", "username", "full_name") ?? pick(fields.sender, "login", "username"))
        : (pick(fields.pusher, "name") ?? pick(fields.sender, "login"));
  return name ? name.slice(0, 100) : null;
}
