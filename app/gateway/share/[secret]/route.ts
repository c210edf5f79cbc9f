import { admitWithShare } from "@/lib/gateway/admission";
import { shareSecretParamsSchema } from "@/lib/gateway/schemas";
import { parseParams } from "@/lib/http/request";
import { route } from "@/lib/http/route";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ secret: string }> };

/**
 * @swagger
 * /gateway/share/{secret}:
 *   get:
 *     tags: [Builds]
 *     summary: A share link opened
 *     description: >
 *       Reached through the gateway as `/__gateway/share/{secret}` on the build's name (the URL POST
 *       /builds/{build_id}/share answered). A live share of this build sets the gateway's cookie for the name,
 *       good until the share expires or is revoked, and answers 303 to the preview's home; a revoked, expired or
 *       unknown link 404. The preview never receives the secret.
 *     parameters:
 *       - $ref: "#/components/parameters/ShareSecretParams.secret"
 *     responses:
 *       303: { description: "Admitted: the gateway's cookie is set; to the preview's home" }
 *       400: { $ref: "#/components/responses/BadRequest" }
 *       404: { $ref: "#/components/responses/NotFound" }
 */
export const GET = route<Context>(async (request, { params }) => {
  const { secret } = parseParams(await params, shareSecretParamsSchema);
  return admitWithShare(request, secret);
});
