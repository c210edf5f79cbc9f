import { takeInHook } from "@/lib/builds/auto/hook-intake";
import { hookParamsSchema } from "@/lib/builds/schemas";
import { parseParams } from "@/lib/http/request";
import { json, route } from "@/lib/http/route";

type Context = { params: Promise<{ alias: string }> };

/**
 * @swagger
 * /hooks/{alias}:
 *   post:
 *     tags: [Builds]
 *     summary: Push events that start automatic builds
 *     description: >
 *       For a repository with `auto_build` and a webhook secret (`webhook_secret` or `webhook_secret_env`).
 *       Authenticated by the host's own scheme, checked in constant time before the body is read:
 *       GitHub `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body>`, Gitea and Forgejo
 *       `X-Gitea-Signature: <hex HMAC-SHA256>`, GitLab `X-Gitlab-Token: <the secret>`. 401 on a missing or bad
 *       signature. A ping answers 200 (`pong`). A push to a followed branch fetches the mirror and builds the
 *       branch's head: 202 `started` with the build, or 202 `pending` when the queue is full (the newest commit
 *       of each branch is remembered and built when there is room). A commit that already has an automatic
 *       build, another event, a tag or a branch not followed answer 200 `nothing_to_do`. Deleting a followed
 *       branch answers 202 `destroying` with the builds being destroyed, once a fetch of the mirror shows the
 *       branch gone (while it still exists: 200 `nothing_to_do`). A delivery whose id (X-GitHub-Delivery,
 *       X-Gitea-Delivery, Idempotency-Key or X-Gitlab-Event-UUID) was taken in before answers 200
 *       `already_processed` and is not acted on again. 400 for a payload that cannot be read. An unknown alias
 *       (404) and an unsigned request (401) are answered before the body is read; at most 8 bodies are read at
 *       once (503 with Retry-After past that), each within 10 s (408).
 *     parameters:
 *       - $ref: "#/components/parameters/HookParams.alias"
 *       - { in: header, name: X-GitHub-Event, schema: { type: string }, example: push, description: "GitHub (and Gitea): push or ping" }
 *       - { in: header, name: X-Hub-Signature-256, schema: { type: string }, description: "GitHub: sha256=<hex HMAC-SHA256 of the raw body>" }
 *       - { in: header, name: X-Gitlab-Event, schema: { type: string }, example: Push Hook }
 *       - { in: header, name: X-Gitlab-Token, schema: { type: string }, description: "GitLab: the secret itself" }
 *       - { in: header, name: X-Gitea-Event, schema: { type: string }, example: push }
 *       - { in: header, name: X-Gitea-Signature, schema: { type: string }, description: "Gitea, Forgejo: hex HMAC-SHA256 of the raw body" }
 *     requestBody:
 *       required: true
 *       content:
 *         application/json:
 *           schema: { $ref: "#/components/schemas/PushEvent" }
 *           examples:
 *             github: { $ref: "#/components/examples/GitHubPush" }
 *             githubBranchDeleted: { $ref: "#/components/examples/GitHubBranchDeleted" }
 *             gitlab: { $ref: "#/components/examples/GitLabPush" }
 *             gitea: { $ref: "#/components/examples/GiteaPush" }
 *     responses:
 *       200:
 *         description: A ping, or nothing to do
 *         content:
 *           application/json:
 *             schema: { $ref: "#/components/schemas/HookResult" }
 *             example: { result: nothing_to_do, detail: "59b20b8d5c6f already has an automatic build.", repository: demo, branch: main, commit_sha: 59b20b8d5c6ff8d09518454d4dd8b7a30f095ab5, build: null, build_ids: [3f9a1c2b7d4e5f60] }
 *       202:
 *         description: A build was started, the commit is remembered until the queue has room, or a deleted branch's builds are being destroyed
 *         content:
 *           application/json:
 *             schema: { $ref: "#/components/schemas/HookResult" }
 *             example: { result: pending, detail: "The build queue is full: 59b20b8d5c6f of main is remembered and built when there is room.", repository: demo, branch: main, commit_sha: 59b20b8d5c6ff8d09518454d4dd8b7a30f095ab5, build: null, build_ids: [] }
 *       400: { $ref: "#/components/responses/BadRequest" }
 *       401:
 *         description: Missing or bad signature
 *         content:
 *           application/problem+json:
 *             schema: { $ref: "#/components/schemas/Problem" }
 *       404: { $ref: "#/components/responses/NotFound" }
 *       408:
 *         description: The body did not arrive within 10 s
 *         content:
 *           application/problem+json:
 *             schema: { $ref: "#/components/schemas/Problem" }
 *       413:
 *         description: The payload is larger than 5 MB
 *         content:
 *           application/problem+json:
 *             schema: { $ref: "#/components/schemas/Problem" }
 *       503: { $ref: "#/components/responses/ServiceUnavailable" }
 */
export const POST = route<Context>(async (request, { params }) => {
  const { alias } = parseParams(await params, hookParamsSchema);
  const { status, body: result } = await takeInHook(alias, request);
  return json(result, { status });
});
