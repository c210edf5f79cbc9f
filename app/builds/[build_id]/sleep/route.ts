import { sleepBuild } from "@/lib/builds/actions/sleep";
import { buildIdParamsSchema } from "@/lib/builds/schemas";
import { parseParams } from "@/lib/http/request";
import { json, route } from "@/lib/http/route";
import { forwardToBuildHost, requireCaller } from "@/lib/topology";

type Context = { params: Promise<{ build_id: string }> };

/**
 * @swagger
 * /builds/{build_id}/sleep:
 *   post:
 *     tags: [Builds]
 *     summary: Put a running build to sleep
 *     description: >
 *       Stops the build's runtime and keeps its data (Compose: `stop`, not `down`; process driver: its processes
 *       end, the workspace stays) and its port; the build becomes `sleeping` and its time to live goes on
 *       counting. `POST /builds/{build_id}/wake` starts it again. A sleeping build answers as it is. 409 for a
 *       build that is not running or has no runtime. Allowed for the build's creator or an admin (an automatic
 *       build: admins only), as extend.
 *     security: [{ bearerAuth: [] }]
 *     parameters:
 *       - $ref: "#/components/parameters/BuildIdParams.build_id"
 *     responses:
 *       200:
 *         description: The build, sleeping
 *         content:
 *           application/json:
 *             schema: { $ref: "#/components/schemas/Build" }
 *       401: { $ref: "#/components/responses/Unauthorized" }
 *       403: { $ref: "#/components/responses/Forbidden" }
 *       404: { $ref: "#/components/responses/NotFound" }
 *       409: { $ref: "#/components/responses/Conflict" }
 *       503: { $ref: "#/components/responses/ServiceUnavailable" }
 */
export const POST = route<Context>(async (request, { params }) => {
  const caller = await requireCaller(request);
  const { build_id } = parseParams(await params, buildIdParamsSchema);
  return (await forwardToBuildHost(request, build_id, caller)) ?? json(await sleepBuild(caller.user, build_id));
});
