import { requireUser } from "@/lib/auth/guard";
import { parseParams } from "@/lib/http/request";
import { json, route } from "@/lib/http/route";
import { webhookParamsSchema } from "@/lib/rates/webhooks/schemas";
import { listDeliveries } from "@/lib/rates/webhooks/service";

/**
 * @swagger
 * /rates/webhooks/{id}/deliveries:
 *   get:
 *     tags: [Rate webhooks]
 *     summary: The webhook's recent deliveries and their outcome
 *     security: [{ bearerAuth: [] }]
 *     parameters:
 *       - $ref: "#/components/parameters/RateWebhookParams.id"
 *     responses:
 *       200:
 *         description: The newest 50, newest first
 *         content:
 *           application/json:
 *             schema: { $ref: "#/components/schemas/RateWebhookDeliveryList" }
 *       401: { $ref: "#/components/responses/Unauthorized" }
 *       404: { $ref: "#/components/responses/NotFound" }
 */
export const GET = route<{ params: Promise<{ id: string }> }>(async (request, { params }) => {
  const user = await requireUser(request);
  return json(await listDeliveries(user.id, parseParams(await params, webhookParamsSchema).id), {
    headers: { "Cache-Control": "no-store" },
  });
});
