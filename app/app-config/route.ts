import { getAppConfig } from "@/lib/builds/service";
import { json, route } from "@/lib/http/route";

// Readiness changes while the server runs: never prerender this at build time.
export const dynamic = "force-dynamic";

/**
 * @swagger
 * /app-config:
 *   get:
 *     tags: [Builds]
 *     summary: The build service's settings, for the build form
 *     description: The configured repositories with their readiness and modules at the default ref (never their URLs), TTL bounds and limits, and the runtime driver with its readiness (and why not) and its stage list.
 *     responses:
 *       200:
 *         description: The settings
 *         content:
 *           application/json:
 *             schema: { $ref: "#/components/schemas/AppConfig" }
 */
export const GET = route(async () => json(await getAppConfig(), { headers: { "Cache-Control": "no-store" } }));
