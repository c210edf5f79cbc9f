import { viewerOf } from "@/lib/auth/guard";
import { acquireStreamSlot } from "@/lib/builds/logs/log-streams";
import { streamBuildLog } from "@/lib/builds/logs/logs";
import { buildIdParamsSchema, buildLogStreamQuerySchema } from "@/lib/builds/schemas";
import { assertBuildVisible } from "@/lib/builds/visibility";
import { parseParams, parseQuery } from "@/lib/http/request";
import { route } from "@/lib/http/route";
import { getEnv } from "@/lib/server/env";
import { forwardToBuildHost, readerOf } from "@/lib/topology";

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
 *       Events are made as the client reads them. Open streams are limited per client address and in all
 *       (LOG_STREAMS_PER_CLIENT, LOG_STREAMS_MAX): past either, a 503 with Retry-After. Through any instance of a
 *       cluster: the one that runs the build serves the events, passed on unbuffered by the one asked (503 when the
 *       former does not answer). A private build's stream is for signed-in users (404 to anyone else).
 *     parameters:
 *       - $ref: "#/components/parameters/BuildIdParams.build_id"
 *       - $ref: "#/components/parameters/BuildLogStreamQuery.stage"
 *       - { in: header, name: Last-Event-ID, schema: { type: integer, minimum: 0 } }
 *     responses:
 *       200:
 *         description: The event stream
 *         content:
 *           text/event-stream:
 *             schema: { type: string }
 *       404: { $ref: "#/components/responses/NotFound" }
 *       400: { $ref: "#/components/responses/BadRequest" }
 *       503:
 *         description: Too many log streams are open, for this client or in all (try again after Retry-After seconds), or the instance that runs the build does not answer
 *         headers:
 *           Retry-After: { schema: { type: integer } }
 *         content:
 *           application/problem+json:
 *             schema: { $ref: "#/components/schemas/Problem" }
 */
export const GET = route<Context>(async (request, { params }) => {
  const { build_id } = parseParams(await params, buildIdParamsSchema);
  const { stage } = parseQuery(request, buildLogStreamQuerySchema);
  const reader = await readerOf(request);
  // A request another instance forwarded was judged there, and carries no credentials of its own.
  if (reader.forwardedBy === null) await assertBuildVisible(build_id, await viewerOf(request));
  // Another instance's build: its host serves the stream and counts it against the client's limit there.
  const forwarded = await forwardToBuildHost(request, build_id, reader);
  if (forwarded) return forwarded;
  const { LOG_STREAMS_MAX, LOG_STREAMS_PER_CLIENT } = getEnv();
  const release = acquireStreamSlot(reader.client, { total: LOG_STREAMS_MAX, perClient: LOG_STREAMS_PER_CLIENT });
  let stream: ReadableStream<Uint8Array>;
  try {
    stream = await streamBuildLog(build_id, stage, request.headers.get("last-event-id"), request.signal, release);
  } catch (error) {
    release();
    throw error;
  }
  return new Response(stream, {
    headers: {
      "Content-Type": "text/event-stream; charset=utf-8",
      // no-transform keeps the response out of compression, which would hold events back.
      "Cache-Control": "no-cache, no-transform",
      "X-Accel-Buffering": "no",
    },
  });
});
