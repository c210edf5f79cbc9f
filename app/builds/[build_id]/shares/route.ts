import { requireUser } from "@/lib/auth/guard";
import { buildIdParamsSchema } from "@/lib/builds/schemas";
import { listShares } from "@/lib/gateway/shares";
import { parseParams } from "@/lib/http/request";
import { json, route } from "@/lib/http/route";

type Context = { params: Promise<{ build_id: string }> };

/**
 * @swagger
 * /builds/{build_id}/shares:
 *   get:
 *     tags: [Builds]
 *     summary: The live share links of a build's preview
 *     description: >
 *       The shares that still open the preview, newest first, without their links (only a hash of each secret
 *       is kept). For the build's creator or an admin.
 *     security: [{ bearerAuth: [] }]
 *     parameters:
 *       - $ref: "#/components/parameters/BuildIdParams.build_id"
 *     responses:
 *       200:
 *         description: The shares
 *         content:
 *           application/json:
 *             schema: { $ref: "#/components/schemas/PreviewShareList" }
 *       401: { $ref: "#/components/responses/Unauthorized" }
 *       403: { $ref: "#/components/responses/Forbidden" }
 *       404: { $ref: "#/components/responses/NotFound" }
 */
export const GET = route<Context>(async (request, { params }) => {
  const user = await requireUser(request);
  const { build_id } = parseParams(await params, buildIdParamsSchema);
  return json({ shares: await listShares(user, build_id) }, { headers: { "Cache-Control": "no-store" } });
});
