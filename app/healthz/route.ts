import { json, route } from "@/lib/http/route";

export const dynamic = "force-dynamic";

/**
 * @swagger
 * /healthz:
 *   get:
 *     tags: [Health]
 *     summary: Liveness, for a load balancer or a supervisor
 *     description: Answers as long as the process serves HTTP; asks nothing of the database (see /readyz).
 *     responses:
 *       200:
 *         description: Alive
 *         content:
 *           application/json:
 *             schema: { $ref: "#/components/schemas/Liveness" }
 */
export const GET = route(async () => json({ status: "alive" }, { headers: { "Cache-Control": "no-store" } }));
