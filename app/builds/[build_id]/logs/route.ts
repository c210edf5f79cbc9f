import { viewerOf } from "@/lib/auth/guard";
import { readBuildLog } from "@/lib/builds/logs/logs";
import { buildIdParamsSchema, buildLogQuerySchema } from "@/lib/builds/schemas";
import { assertBuildVisible } from "@/lib/builds/visibility";
import { parseParams, parseQuery } from "@/lib/http/request";
import { json, route } from "@/lib/http/route";
import { forwardToBuildHost, readerOf } from "@/lib/topology";

type Context = { params: Promise<{ build_id: string }> };

/**
 * @swagger
 * /builds/{build_id}/logs:
 *   get:
 *     tags: [Builds]
 *     summary: A window of at most 100,000 bytes of a build's log
 *     description: >
 *       Without `offset`, the last 100,000 bytes; with it, the bytes from there. Without `stage`, all stages,
 *       each under a `== <stage> ==` heading. Through any instance of a cluster: the one that ran the build
 *       serves it (another passes the request on; 503 when that one does not answer). A private build's logs
 *       (`preview_access: users`) are for signed-in users: anyone else gets the 404 of a build that does not exist.
 *     parameters:
 *       - $ref: "#/components/parameters/BuildIdParams.build_id"
 *       - $ref: "#/components/parameters/BuildLogQuery.stage"
 *       - $ref: "#/components/parameters/BuildLogQuery.offset"
 *     responses:
 *       200:
 *         description: The log window
 *         content:
 *           application/json:
 *             schema: { $ref: "#/components/schemas/BuildLog" }
 *       400: { $ref: "#/components/responses/BadRequest" }
 *       404: { $ref: "#/components/responses/NotFound" }
 *       503: { $ref: "#/components/responses/ServiceUnavailable" }
 */
export const GET = route<Context>(async (request, { params }) => {
  const { build_id } = parseParams(await params, buildIdParamsSchema);
  const query = parseQuery(request, buildLogQuerySchema);
  const reader = await readerOf(request);
  // A request another instance forwarded was judged there, and carries no credentials of its own.
  if (reader.forwardedBy === null) await assertBuildVisible(build_id, await viewerOf(request));
  const forwarded = await forwardToBuildHost(request, build_id, reader);
  if (forwarded) return forwarded;
  return json(await readBuildLog(build_id, query), { headers: { "Cache-Control": "no-store" } });
});
