import { viewerOf } from "@/lib/auth/guard";
import { rawBuildLog } from "@/lib/builds/logs/logs";
import { buildIdParamsSchema, rawBuildLogQuerySchema } from "@/lib/builds/schemas";
import { assertBuildVisible } from "@/lib/builds/visibility";
import { parseParams, parseQuery } from "@/lib/http/request";
import { route } from "@/lib/http/route";
import { forwardToBuildHost, readerOf } from "@/lib/topology";

type Context = { params: Promise<{ build_id: string }> };

/**
 * @swagger
 * /builds/{build_id}/logs/raw:
 *   get:
 *     tags: [Builds]
 *     summary: A build's whole log as a plain-text file
 *     description: >
 *       Every byte the stage wrote so far (ANSI colour codes included, as written), or every stage under its
 *       `== <stage> ==` heading without `stage`; served as an attachment named after the build and the stage.
 *       Public, as the log windows are, a private build's for signed-in users only (404 to anyone else). Through
 *       any instance of a cluster, as the log windows.
 *     parameters:
 *       - $ref: "#/components/parameters/BuildIdParams.build_id"
 *       - $ref: "#/components/parameters/RawBuildLogQuery.stage"
 *     responses:
 *       200:
 *         description: The log
 *         content:
 *           text/plain:
 *             schema: { type: string }
 *       404: { $ref: "#/components/responses/NotFound" }
 *       400: { $ref: "#/components/responses/BadRequest" }
 *       503: { $ref: "#/components/responses/ServiceUnavailable" }
 */
export const GET = route<Context>(async (request, { params }) => {
  const { build_id } = parseParams(await params, buildIdParamsSchema);
  const { stage } = parseQuery(request, rawBuildLogQuerySchema);
  const reader = await readerOf(request);
  // A request another instance forwarded was judged there, and carries no credentials of its own.
  if (reader.forwardedBy === null) await assertBuildVisible(build_id, await viewerOf(request));
  const forwarded = await forwardToBuildHost(request, build_id, reader);
  if (forwarded) return forwarded;
  const log = await rawBuildLog(build_id, stage);
  return new Response(log.body, {
    headers: {
      "Content-Type": "text/plain; charset=utf-8",
      "Content-Length": String(log.size),
      "Content-Disposition": `attachment; filename="${log.fileName}"`,
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
});
