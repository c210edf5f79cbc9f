import { requireUser } from "@/lib/auth/guard";
import { rebuildBuild } from "@/lib/builds/actions/rebuild";
import { buildIdParamsSchema, rebuildBuildSchema } from "@/lib/builds/schemas";
import { requestReceivedAt } from "@/lib/http/client-address";
import { parseOptionalJson, parseParams } from "@/lib/http/request";
import { json, route } from "@/lib/http/route";

type Context = { params: Promise<{ build_id: string }> };

/**
 * @swagger
 * /builds/{build_id}/rebuild:
 *   post:
 *     tags: [Builds]
 *     summary: Build the same repositories and modules again
 *     description: >
 *       A new build with the same repositories and modules and the same time to live (within the configured
 *       bounds); every ref is resolved again, so a branch gets its newest commit. Any signed-in user may rebuild
 *       any build; the new build is theirs (trigger `rebuild`). The same rules as POST /builds apply (400 when a
 *       ref no longer exists or a module is gone, 429 at a per-user build limit, 503 when the queue is full).
 *       The body is optional: `{"install_cache": false}` asks for a fresh install instead of a restore from the
 *       install cache (runtime.install_cache), whose entry the fresh install then replaces.
 *     security: [{ bearerAuth: [] }]
 *     parameters:
 *       - $ref: "#/components/parameters/BuildIdParams.build_id"
 *     requestBody:
 *       required: false
 *       content:
 *         application/json:
 *           schema: { $ref: "#/components/schemas/RebuildBuild" }
 *     responses:
 *       202:
 *         description: The new, queued build
 *         headers:
 *           Location: { description: "/builds/{build_id} of the new build", schema: { type: string } }
 *         content:
 *           application/json:
 *             schema: { $ref: "#/components/schemas/Build" }
 *       400: { $ref: "#/components/responses/BadRequest" }
 *       401: { $ref: "#/components/responses/Unauthorized" }
 *       404: { $ref: "#/components/responses/NotFound" }
 *       415: { $ref: "#/components/responses/UnsupportedMediaType" }
 *       429:
 *         description: The user is at a per-user build limit (as for POST /builds)
 *         headers:
 *           Retry-After: { schema: { type: integer } }
 *         content:
 *           application/problem+json:
 *             schema: { $ref: "#/components/schemas/Problem" }
 *       503: { $ref: "#/components/responses/ServiceUnavailable" }
 */
export const POST = route<Context>(async (request, { params }) => {
  const user = await requireUser(request);
  const { build_id } = parseParams(await params, buildIdParamsSchema);
  // A rebuild without a body restores from the install cache as any build does.
  const { install_cache } = await parseOptionalJson(request, rebuildBuildSchema);
  const build = await rebuildBuild(user, build_id, {
    installCache: install_cache,
    receivedAt: requestReceivedAt(request.headers),
  });
  return json(build, { status: 202, headers: { Location: `/builds/${build.build_id}` } });
});
