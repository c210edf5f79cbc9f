import { requireUser } from "@/lib/auth/guard";
import { parseParams } from "@/lib/http/request";
import { json, route } from "@/lib/http/route";
import { webhookParamsSchema } from "@/lib/rates/webhooks/schemas";
import { getSubscription, unsubscribe } from "@/lib/rates/webhooks/service";

type Context = { params: Promise<{ id: string }> };

/**
 * @swagger
 * /rates/webhooks/{id}:
 *   get:
 *     tags: [Rate webhooks]
 *     summary: One of the signed-in user's webhooks
 *     security: [{ bearerAuth: [] }]
 *     parameters:
 *       - $ref: "#/components/parameters/RateWebhookParams.id"
 *     responses:
 *       200:
 *         description: The subscription, without its secret
 *         content:
 *           application/json:
 *             schema: { $ref: "#/components/schemas/RateWebhook" }
 *       401: { $ref: "#/components/responses/Unauthorized" }
 *       404: { $ref: "#/components/responses/NotFound" }
 *   delete:
 *     tags: [Rate webhooks]
 *     summary: Unsubscribe; its pending deliveries are dropped
 *     security: [{ bearerAuth: [] }]
 *     parameters:
 *       - $ref: "#/components/parameters/RateWebhookParams.id"
 *     responses:
 *       204: { description: Deleted }
 *       401: { $ref: "#/components/responses/Unauthorized" }
 *       404: { $ref: "#/components/responses/NotFound" }
 */
export const GET = route<Context>(async (request, { params }) => {
  const user = await requireUser(request);
  const { id } = parseParams(await params, webhookParamsSchema);
  return json(await getSubscription(user.id, id), { headers: { "Cache-Control": "no-store" } });
});

export const DELETE = route<Context>(async (request, { params }) => {
  const user = await requireUser(request);
  await unsubscribe(user.id, parseParams(await params, webhookParamsSchema).id);
  return new Response(null, { status: 204 });
});
