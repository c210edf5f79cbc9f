import pRetry, { AbortError } from "p-retry";
import { readNamedVariable } from "../../server/env";
import type { ForgeConfig, ForgeKind } from "../config";

/**
 * Calls to the git hosts' own APIs, each as its documentation gives it:
 * - GitHub: POST {api}/repos/{owner}/{repo}/statuses/{sha} (state pending|success|failure|error, context),
 *   comments at /repos/{owner}/{repo}/issues/{n}/comments, edited with PATCH /issues/comments/{id};
 * - GitLab: POST {api}/projects/{id or url-encoded path}/statuses/{sha} (state pending|running|success|failed|
 *   canceled, `name` for the context), notes at /merge_requests/{iid}/notes, edited with PUT .../notes/{id};
 * - Gitea and Forgejo: GitHub's paths under /api/v1, token in `Authorization: token ...`;
 * - open pull requests: GitHub GET /repos/{o}/{r}/pulls?state=open, GitLab GET /projects/{id}/merge_requests?
 *   state=opened, Gitea GET /repos/{o}/{r}/pulls?state=open (lib/builds/forge/pull-requests.ts).
 * Timeouts, network errors, 429 and 5xx are tried again with backoff, a bounded number of times; any other
 * answer is final. The token is read from its variable when a call is made, and every message that leaves
 * this module has it blanked out, whatever the host echoes back.
 */

/** What a build means to the host: our words, turned into each host's own by `hostState`. */
export type ForgeState = "queued" | "building" | "success" | "failure" | "canceled" | "lost";

const HOST_STATES: Record<ForgeKind, Record<ForgeState, string>> = {
  github: {
    queued: "pending",
    building: "pending",
    success: "success",
    failure: "failure",
    canceled: "error",
    lost: "error",
  },
  gitea: {
    queued: "pending",
    building: "pending",
    success: "success",
    failure: "failure",
    canceled: "error",
    lost: "error",
  },
  gitlab: {
    queued: "pending",
    building: "running",
    success: "success",
    failure: "failed",
    canceled: "canceled",
    lost: "failed",
  },
};

export function hostState(kind: ForgeKind, state: ForgeState): string {
  return HOST_STATES[kind][state];
}

export interface ForgeRequest {
  method: "GET" | "POST" | "PATCH" | "PUT";
  /** The path under api_url, with its query string. */
  path: string;
  /** The JSON body; none for GET. */
  body?: Record<string, unknown>;
}

export interface ForgeResult {
  ok: boolean;
  attempts: number;
  /** The answer's status, when there was one. */
  httpStatus: number | null;
  /** The parsed JSON answer of a successful call. */
  response: unknown;
  /** Why the call failed (token blanked out); null when it worked. */
  error: string | null;
}

/** The request that sets a commit's status. GitHub and Gitea limit descriptions to 140 characters. */
export function statusRequest(
  forge: ForgeConfig,
  sha: string,
  state: ForgeState,
  description: string,
  targetUrl: string | null,
): ForgeRequest {
  const body: Record<string, unknown> = { state: hostState(forge.kind, state), description: description.slice(0, 140) };
  if (targetUrl) body.target_url = targetUrl;
  if (forge.kind === "gitlab")
    return {
      method: "POST",
      path: `/projects/${encodeURIComponent(forge.project)}/statuses/${sha}`,
      body: { ...body, name: forge.context },
    };
  return { method: "POST", path: `/repos/${forge.project}/statuses/${sha}`, body: { ...body, context: forge.context } };
}

/** The request that adds a comment to a pull request (GitLab: a note on a merge request). */
export function newCommentRequest(forge: ForgeConfig, number: number, text: string): ForgeRequest {
  if (forge.kind === "gitlab")
    return {
      method: "POST",
      path: `/projects/${encodeURIComponent(forge.project)}/merge_requests/${number}/notes`,
      body: { body: text },
    };
  return { method: "POST", path: `/repos/${forge.project}/issues/${number}/comments`, body: { body: text } };
}

/** The request that replaces the text of a comment made before. */
export function editCommentRequest(forge: ForgeConfig, number: number, commentId: string, text: string): ForgeRequest {
  if (forge.kind === "gitlab") {
    return {
      method: "PUT",
      path: `/projects/${encodeURIComponent(forge.project)}/merge_requests/${number}/notes/${commentId}`,
      body: { body: text },
    };
  }
  return { method: "PATCH", path: `/repos/${forge.project}/issues/comments/${commentId}`, body: { body: text } };
}

function authorization(kind: ForgeKind, token: string): Record<string, string> {
  if (kind === "gitlab") return { "PRIVATE-TOKEN": token };
  if (kind === "gitea") return { Authorization: `token ${token}` };
  return {
    Authorization: `Bearer ${token}`,
    Accept: "application/vnd.github+json",
    "X-GitHub-Api-Version": "2022-11-28",
  };
}

const USER_AGENT = "bcv-runbot/0.2 (+preview builds)";
/** The wait before the first retry; each further one waits about twice as long. */
const FIRST_RETRY_DELAY_MS = 500;

class TransientFailure extends Error {}

/** Sends one request, retrying what may pass on a second try. Never throws: the result says what happened. */
export async function callForge(forge: ForgeConfig, request: ForgeRequest): Promise<ForgeResult> {
  const token = readNamedVariable(forge.token_env);
  const redact = (text: string) => (token ? text.replaceAll(token, "[token]") : text);
  if (!token)
    return {
      ok: false,
      attempts: 0,
      httpStatus: null,
      response: null,
      error: `The environment variable ${forge.token_env} is not set.`,
    };
  const url = `${forge.api_url}${request.path}`;
  let attempts = 0;
  let httpStatus: number | null = null;
  try {
    const response = await pRetry(
      async () => {
        attempts++;
        let answer: Response;
        try {
          answer = await fetch(url, {
            method: request.method,
            headers: {
              ...authorization(forge.kind, token),
              ...(request.body ? { "Content-Type": "application/json" } : {}),
              "User-Agent": USER_AGENT,
            },
            body: request.body ? JSON.stringify(request.body) : undefined,
            signal: AbortSignal.timeout(forge.timeout_seconds * 1000),
            redirect: "error",
          });
        } catch (error) {
          const name = (error as Error).name;
          throw new TransientFailure(
            name === "TimeoutError"
              ? `no answer within ${forge.timeout_seconds} s`
              : `could not reach the host (${describeCause(error)})`,
          );
        }
        httpStatus = answer.status;
        const text = await answer.text().catch(() => "");
        if (answer.ok) return text === "" ? null : safeJson(text);
        const message = `HTTP ${answer.status}${hostMessage(text)}`;
        if (answer.status === 429 || answer.status >= 500) throw new TransientFailure(message);
        throw new AbortError(message);
      },
      {
        retries: forge.retries,
        minTimeout: FIRST_RETRY_DELAY_MS,
        factor: 2,
        randomize: true,
        shouldRetry: ({ error }) => error instanceof TransientFailure,
      },
    );
    return { ok: true, attempts, httpStatus, response, error: null };
  } catch (error) {
    const tries = attempts === 1 ? "1 attempt" : `${attempts} attempts`;
    return {
      ok: false,
      attempts,
      httpStatus,
      response: null,
      error: redact(`${request.method} ${request.path}: ${(error as Error).message} (${tries})`),
    };
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** The host's own explanation (GitHub, Gitea: `message`; GitLab: `message` or `error`), short. */
function hostMessage(text: string): string {
  const body = safeJson(text) as { message?: unknown; error?: unknown } | null;
  const said =
    body && (typeof body.message === "string" ? body.message : typeof body.error === "string" ? body.error : null);
  return said ? `: ${said.slice(0, 200)}` : "";
}

function describeCause(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message;
}
