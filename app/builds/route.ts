import { z } from "zod";
import { requireUser, viewerOf } from "@/lib/auth/guard";
import { createBuild, parseCreateBuild } from "@/lib/builds/actions/create";
import { listBuildsQuerySchema } from "@/lib/builds/schemas";
import { listBuilds } from "@/lib/builds/service";
import { requestReceivedAt } from "@/lib/http/client-address";
import { parseJson, parseQuery } from "@/lib/http/request";
import { json, route } from "@/lib/http/route";

/**
 * @swagger
 * /builds:
 *   get:
 *     tags: [Builds]
 *     summary: Builds, newest first
 *     description: >
 *       A browser's navigation (Accept preferring text/html) is given the builds console, the page of this list for
 *       people, at the same address; everyone else the JSON below. Public, except the builds of a repository whose
 *       previews are private (`preview_access: users`), which are listed to signed-in users only (a bearer token or
 *       a session).
 *     parameters:
 *       - $ref: "#/components/parameters/ListBuildsQuery.status"
 *       - $ref: "#/components/parameters/ListBuildsQuery.limit"
 *       - $ref: "#/components/parameters/ListBuildsQuery.cursor"
 *     responses:
 *       200:
 *         description: One page of builds, without their stages
 *         content:
 *           application/json:
 *             schema: { $ref: "#/components/schemas/BuildList" }
 *       400: { $ref: "#/components/responses/BadRequest" }
 */
export const GET = route(async (request) => {
  const query = parseQuery(request, listBuildsQuerySchema);
  return json(await listBuilds(query, await viewerOf(request)), { headers: { "Cache-Control": "no-store" } });
});

/**
 * @swagger
 * /builds:
 *   post:
 *     tags: [Builds]
 *     summary: Start a build
 *     description: >
 *       Resolves every ref to a commit, stores the build and queues it. Either `repositories` or the legacy
 *       `repository` and `ref`. Wrong JSON types answer 400 too; the rules of the build service (unknown fields,
 *       unknown or duplicate repositories, unsafe or missing refs, invalid or missing modules, ttl bounds) 400.
 *       503 when the runtime is not ready (for the compose driver: no Docker, or a daemon that does not
 *       answer; the detail names the reason), the queue is full or a repository's mirror is not ready.
 *       429 when the user is at a per-user limit of the builds configuration (`limits.live_per_user`: builds
 *       queued, in progress or running; `limits.queued_per_user`: builds waiting), the detail naming the limit
 *       and the numbers. Admins have their own limits (none unless configured).
 *     security: [{ bearerAuth: [] }]
 *     requestBody:
 *       required: true
 *       content:
 *         application/json:
 *           schema: { $ref: "#/components/schemas/CreateBuild" }
 *     responses:
 *       202:
 *         description: The queued build
 *         headers:
 *           Location: { description: "/builds/{build_id}", schema: { type: string } }
 *         content:
 *           application/json:
 *             schema: { $ref: "#/components/schemas/Build" }
 *       400: { $ref: "#/components/responses/BadRequest" }
 *       401: { $ref: "#/components/responses/Unauthorized" }
 *       429:
 *         description: The user is at a per-user build limit; the detail names it, with the numbers
 *         headers:
 *           Retry-After: { schema: { type: integer } }
 *         content:
 *           application/problem+json:
 *             schema: { $ref: "#/components/schemas/Problem" }
 *             example: { type: about:blank, title: Too Many Requests, status: 429, detail: "You have 5 live builds (queued, in progress or running), and limits.live_per_user allows 5: cancel or destroy one of them, or wait until one ends, before starting another." }
 *       503: { $ref: "#/components/responses/ServiceUnavailable" }
 */
export const POST = route(async (request) => {
  const user = await requireUser(request);
  const input = parseCreateBuild(await parseJson(request, z.unknown()));
  const build = await createBuild(user, input, { receivedAt: requestReceivedAt(request.headers) });
  return json(build, { status: 202, headers: { Location: `/builds/${build.build_id}` } });
});
