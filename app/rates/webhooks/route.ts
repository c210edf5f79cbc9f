import { requireUser } from "@/lib/auth/guard";
import { parseJson } from "@/lib/http/request";
import { json, route } from "@/lib/http/route";
import { createWebhookSchema } from "@/lib/rates/webhooks/schemas";
import { listSubscriptions, subscribe } from "@/lib/rates/webhooks/service";

const noStore = { "Cache-Control": "no-store" };

/**
 * @swagger
 * /rates/webhooks:
 *   post:
 *     tags: [Rate webhooks]
 *     summary: Subscribe a URL to new value dates
 *     description: >
 *       Each time a new value date is stored (the schedule, POST /rates/, an import), the URL gets a POST of
 *       `{type: "rates.published", timestamp, data: {value_date, dollar, rates, in_force, published_at, source}}`
 *       with the rates of the subscribed currencies; `in_force` is false for a rate published ahead of its value
 *       date (the bank's afternoon publication: in force from value_date), and `published_at` says when this
 *       service first stored it. Signed as Standard Webhooks sign (headers webhook-id: the delivery id, the same on
 *       every retry; webhook-timestamp; webhook-signature: "v1," + base64 HMAC-SHA256 over "id.timestamp.body"
 *       keyed with the secret's base64 part). Failed attempts (not 2xx, no answer within WEBHOOK_TIMEOUT_MS, a
 *       redirect, which is never followed) are retried with backoff. The URL must be http(s) and resolve to
 *       public addresses only (no loopback, private, link-local or metadata address; checked again on every
 *       delivery), unless WEBHOOK_ALLOWED_HOSTS names it. The secret is shown in this answer only.
 *     security: [{ bearerAuth: [] }]
 *     requestBody:
 *       required: true
 *       content:
 *         application/json:
 *           schema: { $ref: "#/components/schemas/CreateRateWebhook" }
 *     responses:
 *       201:
 *         description: Subscribed; keep the secret
 *         content:
 *           application/json:
 *             schema: { $ref: "#/components/schemas/CreatedRateWebhook" }
 *       400: { $ref: "#/components/responses/BadRequest" }
 *       401: { $ref: "#/components/responses/Unauthorized" }
 *       409: { $ref: "#/components/responses/Conflict" }
 *   get:
 *     tags: [Rate webhooks]
 *     summary: The signed-in user's webhooks
 *     security: [{ bearerAuth: [] }]
 *     responses:
 *       200:
 *         description: The subscriptions, without their secrets
 *         content:
 *           application/json:
 *             schema: { $ref: "#/components/schemas/RateWebhookList" }
 *       401: { $ref: "#/components/responses/Unauthorized" }
 */
export const POST = route(async (request) => {
  const user = await requireUser(request);
  return json(await subscribe(user.id, await parseJson(request, createWebhookSchema)), {
    status: 201,
    headers: noStore,
  });
});

export const GET = route(async (request) => {
  const user = await requireUser(request);
  return json(await listSubscriptions(user.id), { headers: noStore });
});
