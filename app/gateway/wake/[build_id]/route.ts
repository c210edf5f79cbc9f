import { wakeForVisit } from "@/lib/builds/runtime/sleep";
import { buildIdParamsSchema } from "@/lib/builds/schemas";
import { unauthorized } from "@/lib/http/problem";
import { parseParams } from "@/lib/http/request";
import { json, route } from "@/lib/http/route";
import { verifyPeerRequest } from "@/lib/topology";

type Context = { params: Promise<{ build_id: string }> };

/**
 * @swagger
 * /gateway/wake/{build_id}:
 *   post:
 *     tags: [Builds]
 *     summary: Wake a sleeping build for a visit (between instances)
 *     description: >
 *       Sent by the instance that served a visit to a sleeping preview through the gateway to the build's host,
 *       signed as forwarded requests are; anything unsigned is refused. Starts the wake and answers at once
 *       (202); a build that is not asleep, or is waking already, is left as it is.
 *     parameters:
 *       - $ref: "#/components/parameters/BuildIdParams.build_id"
 *     responses:
 *       202:
 *         description: The wake started, or was not needed
 *       401: { $ref: "#/components/responses/Unauthorized" }
 */
export const POST = route<Context>(async (request, { params }) => {
  const peer = await verifyPeerRequest(request);
  if (!peer) throw unauthorized("Only another instance of this service asks for a wake on a visit.");
  const { build_id } = parseParams(await params, buildIdParamsSchema);
  void wakeForVisit(build_id).catch((error) =>
    console.error(`gateway: waking build ${build_id} for a visit through ${peer.from} failed:`, error),
  );
  return json({ build_id }, { status: 202 });
});
