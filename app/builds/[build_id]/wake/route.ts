import { wakeBuild } from "@/lib/builds/actions/wake";
import { buildIdParamsSchema } from "@/lib/builds/schemas";
import { parseParams } from "@/lib/http/request";
import { json, route } from "@/lib/http/route";
import { forwardToBuildHost, requireCaller } from "@/lib/topology";

type Context = { params: Promise<{ build_id: string }> };

/**
 * @swagger
 * /builds/{build_id}/wake:
 *   post:
 *     tags: [Builds]
 *     summary: Wake a sleeping build
 *     description: >
 *       Starts the build's runtime again (the driver's start stage, on the same port) and waits for its
 *       healthcheck, then answers the build `running`; a runtime that does not come back healthy fails the
 *       build (failure_stage `wake`). The time to live is not reset: it kept counting while the build slept.
 *       With `max_awake_builds`, the builds awake longest without a wake or an extension may go to sleep. A
 *       running build answers as it is; 409 for a build that is neither sleeping nor running, or already waking.
 *       Allowed for the build's creator or an admin (an automatic build: admins only), as extend.
 *     security: [{ bearerAuth: [] }]
 *     parameters:
 *       - $ref: "#/components/parameters/BuildIdParams.build_id"
 *     responses:
 *       200:
 *         description: The build, running again (or failed when its runtime did not come back)
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
  return (await forwardToBuildHost(request, build_id, caller)) ?? json(await wakeBuild(caller.user, build_id));
});
