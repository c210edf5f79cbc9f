import { cancelBuild } from "@/lib/builds/actions/cancel";
import { buildIdParamsSchema } from "@/lib/builds/schemas";
import { parseParams } from "@/lib/http/request";
import { json, route } from "@/lib/http/route";
import { forwardToBuildHost, requireCaller } from "@/lib/topology";

type Context = { params: Promise<{ build_id: string }> };

/**
 * @swagger
 * /builds/{build_id}/cancel:
 *   post:
 *     tags: [Builds]
 *     summary: Cancel a queued or in-progress build
 *     description: >
 *       SIGTERM to the running stage's process group (SIGKILL after 10 s), then the runtime is destroyed.
 *       Answers once the processes are gone. 409 when the build is already over (a running build is
 *       destroyed with DELETE instead).
 *     security: [{ bearerAuth: [] }]
 *     parameters:
 *       - $ref: "#/components/parameters/BuildIdParams.build_id"
 *     responses:
 *       200:
 *         description: The canceled build
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
  return (await forwardToBuildHost(request, build_id, caller)) ?? json(await cancelBuild(build_id, caller.user));
});
