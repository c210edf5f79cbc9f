import { requireAdmin } from "@/lib/auth/guard";
import { dropInstallCacheEntry } from "@/lib/builds/install-cache/drop-entry";
import { installCacheKeyParamsSchema } from "@/lib/builds/install-cache/schemas";
import { parseParams } from "@/lib/http/request";
import { route } from "@/lib/http/route";

type Context = { params: Promise<{ key: string }> };

/**
 * @swagger
 * /builds/cache/{key}:
 *   delete:
 *     tags: [Builds]
 *     summary: Drop an entry of the install cache on this builder host (admins)
 *     description: >
 *       Removes the entry, so that the next build of its key installs afresh and saves a new one. 404 when the
 *       instance that answers keeps no such entry; 409 while a build restores or saves it.
 *     security: [{ bearerAuth: [] }]
 *     parameters:
 *       - $ref: "#/components/parameters/InstallCacheKeyParams.key"
 *     responses:
 *       204: { description: The entry was removed }
 *       400: { $ref: "#/components/responses/BadRequest" }
 *       401: { $ref: "#/components/responses/Unauthorized" }
 *       403: { $ref: "#/components/responses/Forbidden" }
 *       404: { $ref: "#/components/responses/NotFound" }
 *       409: { $ref: "#/components/responses/Conflict" }
 */
export const DELETE = route<Context>(async (request, { params }) => {
  await requireAdmin(request);
  const { key } = parseParams(await params, installCacheKeyParamsSchema);
  await dropInstallCacheEntry(key);
  return new Response(null, { status: 204 });
});
