import { route } from "@/lib/http/route";
import { scrapeMetrics } from "@/lib/metrics/scrape";

export const dynamic = "force-dynamic";

/**
 * @swagger
 * /metrics:
 *   get:
 *     tags: [Health]
 *     summary: Metrics, for Prometheus
 *     description: >
 *       The Prometheus text format: requests by route pattern, method and status with their durations, builds by
 *       status, the queue, slots, stage durations, instances and their heartbeats, the rates' freshness, webhook
 *       deliveries and log streams, and the process's own. Only with `Authorization: Bearer <METRICS_TOKEN>`;
 *       404 when METRICS_TOKEN is not set. The cluster's figures come from one instance at a time
 *       (`cluster_figures_reporter`).
 *     security: [{ bearerAuth: [] }]
 *     responses:
 *       200:
 *         description: The metrics
 *         content:
 *           text/plain: { schema: { type: string } }
 *       401: { $ref: "#/components/responses/Unauthorized" }
 *       404: { $ref: "#/components/responses/NotFound" }
 */
export const GET = route(async (request) => {
  const { contentType, body } = await scrapeMetrics(request);
  return new Response(body, { headers: { "Content-Type": contentType, "Cache-Control": "no-store" } });
});
