import { requireUser } from "@/lib/auth/guard";
import { shareIdParamsSchema } from "@/lib/gateway/schemas";
import { revokeShare } from "@/lib/gateway/shares";
import { parseParams } from "@/lib/http/request";
import { route } from "@/lib/http/route";

type Context = { params: Promise<{ build_id: string; share_id: string }> };

/**
 * @swagger
 * /builds/{build_id}/shares/{share_id}:
 *   delete:
 *     tags: [Builds]
 *     summary: Revoke a share link
 *     description: >
 *       The link stops opening the preview at once; visitors it admitted are refused within a second (the
 *       gateway keeps each answer that long). For the build's creator or an admin.
 *     security: [{ bearerAuth: [] }]
 *     parameters:
 *       - $ref: "#/components/parameters/ShareIdParams.build_id"
 *       - $ref: "#/components/parameters/ShareIdParams.share_id"
 *     responses:
 *       204: { description: Revoked }
 *       401: { $ref: "#/components/responses/Unauthorized" }
 *       403: { $ref: "#/components/responses/Forbidden" }
 *       404: { $ref: "#/components/responses/NotFound" }
 */
export const DELETE = route<Context>(async (request, { params }) => {
  const user = await requireUser(request);
  const { build_id, share_id } = parseParams(await params, shareIdParamsSchema);
  await revokeShare(user, build_id, share_id);
  return new Response(null, { status: 204 });
});
