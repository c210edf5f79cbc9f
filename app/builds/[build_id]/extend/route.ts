import { requireUser } from "@/lib/auth/guard";
import { extendBuild } from "@/lib/builds/actions/extend";
import { buildIdParamsSchema, extendBuildSchema } from "@/lib/builds/schemas";
import { parseJson, parseParams } from "@/lib/http/request";
import { json, route } from "@/lib/http/route";

type Context = { params: Promise<{ build_id: string }> };

/**
 * @swagger
 * /builds/{build_id}/extend:
 *   post:
 *     tags: [Builds]
 *     summary: Give a running build more time (adds, never shortens)
 *     description: >
 *       Adds `ttl_seconds` to the time the build has left: it now expires at its current expiry plus
 *       `ttl_seconds`, capped at ttl.max_seconds from now (400 for a `ttl_seconds` above ttl.max_seconds).
 *       Extending never shortens a build's life: one that already has more than the cap left keeps it.
 *       `ttl_seconds` of the answer becomes the build's whole time to live, from reaching running to the new
 *       expiry. 409 for a build that is not running. Allowed for the build's creator or an admin (an automatic
 *       build: admins only).
 *     security: [{ bearerAuth: [] }]
 *     parameters:
 *       - $ref: "#/components/parameters/BuildIdParams.build_id"
 *     requestBody:
 *       required: true
 *       content:
 *         application/json:
 *           schema: { $ref: "#/components/schemas/ExtendBuild" }
 *     responses:
 *       200:
 *         description: The build with its new expires_at
 *         content:
 *           application/json:
 *             schema: { $ref: "#/components/schemas/Build" }
 *       400: { $ref: "#/components/responses/BadRequest" }
 *       401: { $ref: "#/components/responses/Unauthorized" }
 *       403: { $ref: "#/components/responses/Forbidden" }
 *       404: { $ref: "#/components/responses/NotFound" }
 *       409: { $ref: "#/components/responses/Conflict" }
 */
export const POST = route<Context>(async (request, { params }) => {
  const user = await requireUser(request);
  const { build_id } = parseParams(await params, buildIdParamsSchema);
  const { ttl_seconds } = await parseJson(request, extendBuildSchema);
  return json(await extendBuild(user, build_id, ttl_seconds));
});
