import { requireUser } from "@/lib/auth/guard";
import { parseParams } from "@/lib/http/request";
import { json, route } from "@/lib/http/route";
import { webhookParamsSchema } from "@/lib/rates/webhooks/schemas";
import { sendTestDelivery } from "@/lib/rates/webhooks/service";

/**
 * @swagger
 * /rates/webhooks/{id}/test:
 *   post:
 *     tags: [Rate webhooks]
 *     summary: Send a test delivery
 *     description: >
 *       Queues a `webhook.test` delivery, signed and retried like the others; its outcome shows under
 *       /rates/webhooks/{id}/deliveries. At most 3 test deliveries of a webhook wait at once (429 past that).
 *     security: [{ bearerAuth: [] }]
 *     parameters:
 *       - $ref: "#/components/parameters/RateWebhookParams.id"
 *     responses:
 *       202:
 *         description: Queued
 *         content:
 *           application/json:
 *             schema: { $ref: "#/components/schemas/RateWebhookDelivery" }
 *       401: { $ref: "#/components/responses/Unauthorized" }
 *       404: { $ref: "#/components/responses/NotFound" }
 *       429: { $ref: "#/components/responses/TooManyRequests" }
 */
export const POST = route<{ params: Promise<{ id: string }> }>(async (request, { params }) => {
  const user = await requireUser(request);
  const delivery = await sendTestDelivery(user.id, parseParams(await params, webhookParamsSchema).id);
  return json(delivery, { status: 202, headers: { "Cache-Control": "no-store" } });
});
