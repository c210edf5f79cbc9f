import { checkReadiness } from "@/lib/health/readiness";
import { json, route } from "@/lib/http/route";

export const dynamic = "force-dynamic";

/**
 * @swagger
 * /readyz:
 *   get:
 *     tags: [Health]
 *     summary: Readiness, for a load balancer
 *     description: >
 *       200 when the database answers and has applied every migration this build ships; 503 naming what is missing
 *       otherwise. Why the database does not answer is told to an admin (a bearer token or a session) only.
 *     responses:
 *       200:
 *         description: Ready
 *         content:
 *           application/json:
 *             schema: { $ref: "#/components/schemas/Readiness" }
 *       503: { $ref: "#/components/responses/ServiceUnavailable" }
 */
export const GET = route(async (request) =>
  json(await checkReadiness(request), { headers: { "Cache-Control": "no-store" } }),
);
