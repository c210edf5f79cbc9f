import { requireAdmin } from "@/lib/auth/guard";
import { listInstallCache } from "@/lib/builds/install-cache/list-entries";
import { json, route } from "@/lib/http/route";

export const dynamic = "force-dynamic";

/**
 * @swagger
 * /builds/cache:
 *   get:
 *     tags: [Builds]
 *     summary: The install cache's entries on this builder host (admins)
 *     description: >
 *       The entries of runtime.install_cache kept by the instance that answers (each builder host keeps its own,
 *       under its builds_root), most recently used first: each with its key, the modules its install read, the
 *       commits of the build that saved it, its size, that build, when it was saved and last used, and how many
 *       builds restored it. An empty list when no install cache is configured.
 *     security: [{ bearerAuth: [] }]
 *     responses:
 *       200:
 *         description: The entries
 *         content:
 *           application/json:
 *             schema: { $ref: "#/components/schemas/InstallCacheEntries" }
 *       401: { $ref: "#/components/responses/Unauthorized" }
 *       403: { $ref: "#/components/responses/Forbidden" }
 */
export const GET = route(async (request) => {
  await requireAdmin(request);
  return json(listInstallCache(), { headers: { "Cache-Control": "no-store" } });
});
