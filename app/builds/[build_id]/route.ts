import { requireUser, viewerOf } from "@/lib/auth/guard";
import { destroyBuild, destroyBuildOfLostHost } from "@/lib/builds/actions/destroy";
import { setPreviewAccess } from "@/lib/builds/actions/set-preview-access";
import { buildIdParamsSchema, updateBuildSchema } from "@/lib/builds/schemas";
import { getBuild } from "@/lib/builds/service";
import { prefersHtml } from "@/lib/http/negotiate";
import { parseJson, parseParams } from "@/lib/http/request";
import { consoleWithBuild, json, route } from "@/lib/http/route";
import { forwardToBuildHost, requireCaller } from "@/lib/topology";

type Context = { params: Promise<{ build_id: string }> };

/**
 * @swagger
 * /builds/{build_id}:
 *   get:
 *     tags: [Builds]
 *     summary: A build with its stages
 *     description: >
 *       Public, except a private build's (its first repository's `preview_access` is `users`): to anyone not signed
 *       in, that build answers the 404 of a build that does not exist. Sent with a bearer token or a session
 *       (optional), `viewer_can_change` tells whether the requester
 *       may cancel, destroy or extend the build; credentials that no longer hold count as none here. This is also the
 *       build's address for people: a browser (Accept preferring text/html) is sent to the builds console with
 *       the build open (303 to `/builds?build={build_id}`); JSON clients get the build.
 *     parameters:
 *       - $ref: "#/components/parameters/BuildIdParams.build_id"
 *     responses:
 *       200:
 *         description: The build
 *         content:
 *           application/json:
 *             schema: { $ref: "#/components/schemas/Build" }
 *       303:
 *         description: For a browser, the builds console with the build open
 *         headers:
 *           Location: { schema: { type: string }, example: "/builds?build=3f9a1c2b7d4e5f60" }
 *       404: { $ref: "#/components/responses/NotFound" }
 */
export const GET = route<Context>(async (request, { params }) => {
  const { build_id } = parseParams(await params, buildIdParamsSchema);
  // The build's permanent address, opened in a browser: the builds console with this build open.
  if (prefersHtml(request)) return consoleWithBuild(build_id);
  return json(await getBuild(build_id, await viewerOf(request)), { headers: { "Cache-Control": "no-store" } });
});

/**
 * @swagger
 * /builds/{build_id}:
 *   delete:
 *     tags: [Builds]
 *     summary: Destroy a build's runtime
 *     description: >
 *       Stops its processes (or takes down its Compose project), frees its port and removes its runtime files;
 *       the logs stay. 409 while the build is queued or in progress (cancel it first). 503 when the runtime
 *       cannot be reached (a Docker daemon that does not answer): the build stays destroying and is finished
 *       later. Deleting a destroyed build answers it again. When the build's host is lost (several instances: no
 *       heartbeat for INSTANCE_LOST_AFTER_SECONDS), its runtime cannot be reached: the build is destroyed in the
 *       database and the answer is 202; the host removes what it left if it comes back.
 *     security: [{ bearerAuth: [] }]
 *     parameters:
 *       - $ref: "#/components/parameters/BuildIdParams.build_id"
 *     responses:
 *       200:
 *         description: The build, destroyed
 *         content:
 *           application/json:
 *             schema: { $ref: "#/components/schemas/Build" }
 *       202:
 *         description: >
 *           The build, destroyed in the database; its host is lost, so its runtime could not be reached and is
 *           removed when that host comes back
 *         content:
 *           application/json:
 *             schema: { $ref: "#/components/schemas/Build" }
 *       401: { $ref: "#/components/responses/Unauthorized" }
 *       403: { $ref: "#/components/responses/Forbidden" }
 *       404: { $ref: "#/components/responses/NotFound" }
 *       409: { $ref: "#/components/responses/Conflict" }
 *       503: { $ref: "#/components/responses/ServiceUnavailable" }
 */
export const DELETE = route<Context>(async (request, { params }) => {
  const caller = await requireCaller(request);
  const { build_id } = parseParams(await params, buildIdParamsSchema);
  const forwarded = await forwardToBuildHost(request, build_id, caller, {
    whenHostLost: async (host) => json(await destroyBuildOfLostHost(build_id, caller.user, host.name), { status: 202 }),
  });
  return forwarded ?? json(await destroyBuild(build_id, caller.user));
});

/**
 * @swagger
 * /builds/{build_id}:
 *   patch:
 *     tags: [Builds]
 *     summary: Open a build's preview to anyone, or keep it to signed-in users
 *     description: >
 *       Sets who opens the build's preview through the gateway: `public`, anyone with its address; `users`,
 *       people signed in to the dashboard and holders of a share link. The gateway applies it within a second.
 *       The choice becomes its branch's: the next builds of the build's first repository at the same ref,
 *       automatic ones included, start with it. Without a choice a build has its first repository's
 *       preview_access. 409 without a gateway. Allowed for the build's creator or an admin (an automatic build:
 *       admins only).
 *     security: [{ bearerAuth: [] }]
 *     parameters:
 *       - $ref: "#/components/parameters/BuildIdParams.build_id"
 *     requestBody:
 *       required: true
 *       content:
 *         application/json:
 *           schema: { $ref: "#/components/schemas/UpdateBuild" }
 *     responses:
 *       200:
 *         description: The build with its new preview_access
 *         content:
 *           application/json:
 *             schema: { $ref: "#/components/schemas/Build" }
 *       400: { $ref: "#/components/responses/BadRequest" }
 *       401: { $ref: "#/components/responses/Unauthorized" }
 *       403: { $ref: "#/components/responses/Forbidden" }
 *       404: { $ref: "#/components/responses/NotFound" }
 *       409: { $ref: "#/components/responses/Conflict" }
 *       415: { $ref: "#/components/responses/UnsupportedMediaType" }
 */
export const PATCH = route<Context>(async (request, { params }) => {
  const user = await requireUser(request);
  const { build_id } = parseParams(await params, buildIdParamsSchema);
  const { preview_access } = await parseJson(request, updateBuildSchema);
  return json(await setPreviewAccess(user, build_id, preview_access));
});
