import { requireUser } from "@/lib/auth/guard";
import { buildIdParamsSchema } from "@/lib/builds/schemas";
import { createShareSchema } from "@/lib/gateway/schemas";
import { createShare } from "@/lib/gateway/shares";
import { parseOptionalJson, parseParams } from "@/lib/http/request";
import { json, route } from "@/lib/http/route";

type Context = { params: Promise<{ build_id: string }> };

/**
 * @swagger
 * /builds/{build_id}/share:
 *   post:
 *     tags: [Builds]
 *     summary: Make a share link of a build's preview
 *     description: >
 *       A link that opens the preview through the gateway for whoever holds it, private preview or not. With
 *       `scope: branch` (the default for a build of a branch) it opens, at the branch's name, the newest live build
 *       of the build's first repository at that ref, across pushes and rebuilds; with `scope: build` (the default
 *       for a build of a commit) this build, at its own name. It works until `expires_in_seconds` have passed (24 hours unless given, at most 7 days) or it is revoked
 *       (DELETE /builds/{build_id}/shares/{share_id}). The answer's `url` is shown this once: only its secret's
 *       hash is kept. The body may be left out. 409 without a gateway, or for a build whose preview is gone.
 *       Allowed for the build's creator or an admin.
 *     security: [{ bearerAuth: [] }]
 *     parameters:
 *       - $ref: "#/components/parameters/BuildIdParams.build_id"
 *     requestBody:
 *       required: false
 *       content:
 *         application/json:
 *           schema: { $ref: "#/components/schemas/CreateShare" }
 *     responses:
 *       201:
 *         description: The share, with its link
 *         content:
 *           application/json:
 *             schema: { $ref: "#/components/schemas/CreatedPreviewShare" }
 *       400: { $ref: "#/components/responses/BadRequest" }
 *       401: { $ref: "#/components/responses/Unauthorized" }
 *       403: { $ref: "#/components/responses/Forbidden" }
 *       404: { $ref: "#/components/responses/NotFound" }
 *       409: { $ref: "#/components/responses/Conflict" }
 *       415: { $ref: "#/components/responses/UnsupportedMediaType" }
 */
export const POST = route<Context>(async (request, { params }) => {
  const user = await requireUser(request);
  const { build_id } = parseParams(await params, buildIdParamsSchema);
  const { expires_in_seconds, scope } = await parseOptionalJson(request, createShareSchema);
  return json(await createShare(user, build_id, expires_in_seconds, scope), { status: 201 });
});
