import { parseParams, parseQuery } from "@/lib/http/request";
import { route } from "@/lib/http/route";
import { streamBuildLog } from "@/lib/builds/logs";
import { buildIdParamsSchema, buildLogStreamQuerySchema } from "@/lib/builds/schemas";

type Context = { params: Promise<{ build_id: string }> };

/**
 * @swagger
 * /builds/{build_id}/logs/stream:
 *   get:
 *     tags: [Builds]
 *     summary: A stage's log live, as Server-Sent Events
 *     description: >
 *       Each event's `data` lines are the log's next bytes and its `id` the byte offset after them; send
 *       `Last-Event-ID` to resume from there. A `: ping` comment every 15 s; an `end` event once the stage is over.
 *     parameters:
 *       - { in: path, name: build_id, required: true, schema: { type: string } }
 *       - { in: query, name: stage, required: true, schema: { type: string, enum: [checkout, install, test, start, healthcheck] } }
 *       - { in: header, name: Last-Event-ID, schema: { type: integer, minimum: 0 } }
 *     responses:
 *       200:
 *         description: The event stream
 *         content:
 *           text/event-stream:
 *             schema: { type: string }
 *       404: { $ref: "#/components/responses/NotFound" }
 *       422: { $ref: "#/components/responses/ValidationError" }
 */
export const GET = route<Context>(async (request, { params }) => {
  const { build_id } = parseParams(await params, buildIdParamsSchema);
  const { stage } = parseQuery(request, buildLogStreamQuerySchema);
  const stream = await streamBuildLog(build_id, stage, request.headers.get("last-event-id"), request.signal);
  return new Response(stream, {
    headers: {
      "Content-Type": "text/event-stream; charset=utf-8",
      // no-transform keeps the response out of compression, which would hold events back.
      "Cache-Control": "no-cache, no-transform",
      "X-Accel-Buffering": "no",
    },
  });
});
