import { z } from "zod";
import { isoDateSchema } from "../schemas";

export const MAX_WEBHOOKS_PER_USER = 20;

export const createWebhookSchema = z
  .object({
    url: z
      .string({ error: "is required: the http(s) URL that receives the deliveries" })
      .max(2000, { error: "must be at most 2000 characters" })
      .describe("Where deliveries are POSTed: http or https, a public address (or one WEBHOOK_ALLOWED_HOSTS allows)")
      .meta({ example: "https://example.com/hooks/bcv" }),
    currencies: z
      .union([z.literal("all"), z.array(z.string()).min(1).max(32)], {
        error: 'must be "all" or a list of ISO 4217 codes such as ["USD", "EUR"]',
      })
      .default("all")
      .describe('"all" (the default) or the ISO 4217 codes whose rates a delivery carries')
      .meta({ example: ["USD", "EUR"] }),
  })
  .meta({ id: "CreateRateWebhook" });

export const webhookParamsSchema = z.object({
  id: z
    .string()
    .regex(/^wh_[A-Za-z0-9_-]{1,64}$/, { error: "must be a webhook id (wh_...)" })
    .describe("The webhook's id, as POST /rates/webhooks answered it")
    .meta({ example: "wh_q2uXk0mB8Y1cZ5o3c7tH0w" }),
});

const instant = z.string().describe("ISO 8601, UTC").meta({ example: "2026-11-24T21:00:02.123Z" });

export const deliverySchema = z
  .object({
    id: z
      .string()
      .describe("The delivery id, sent as webhook-id on every attempt")
      .meta({ example: "msg_2Lb0Qn1XvJkC9w" }),
    type: z.enum(["rates.published", "webhook.test"]),
    value_date: isoDateSchema.nullable().describe("For rates.published: the new value date"),
    status: z.enum(["pending", "delivered", "failed"]).describe("failed: every attempt failed (WEBHOOK_MAX_ATTEMPTS)"),
    attempts: z.number().int(),
    last_attempt_at: instant.nullable(),
    last_status: z.number().int().nullable().describe("The HTTP status the receiver answered last"),
    last_error: z
      .string()
      .nullable()
      .describe(
        "Why the last failed attempt failed (a status, a timeout, a refused address, a connection error), kept when a retry then succeeded",
      ),
    next_attempt_at: instant.nullable().describe("While pending: when it is tried next"),
    delivered_at: instant.nullable(),
    created_at: instant,
  })
  .meta({ id: "RateWebhookDelivery" });

export const webhookSchema = z
  .object({
    id: z.string().meta({ example: "wh_q2uXk0mB8Y1cZ5o3c7tH0w" }),
    url: z.string(),
    currencies: z.union([z.literal("all"), z.array(z.string())]),
    created_at: instant,
    last_delivery: deliverySchema
      .nullable()
      .describe("The newest delivery and its outcome (the list's first under /deliveries), or null before the first"),
  })
  .meta({ id: "RateWebhook" });

export const createdWebhookSchema = webhookSchema
  .extend({
    secret: z
      .string()
      .describe(
        "The signing secret (Standard Webhooks: whsec_ + base64 of the key), shown this once: verify webhook-signature with it",
      )
      .meta({ example: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" }),
  })
  .meta({ id: "CreatedRateWebhook" });

export const webhookListSchema = z
  .object({ webhooks: z.array(webhookSchema).describe("The signed-in user's subscriptions, oldest first") })
  .meta({ id: "RateWebhookList" });

export const deliveryListSchema = z
  .object({ deliveries: z.array(deliverySchema).describe("The newest 50 deliveries, newest first") })
  .meta({ id: "RateWebhookDeliveryList" });

export type CreateWebhookBody = z.infer<typeof createWebhookSchema>;
export type WebhookView = z.infer<typeof webhookSchema>;
export type CreatedWebhookView = z.infer<typeof createdWebhookSchema>;
export type DeliveryView = z.infer<typeof deliverySchema>;
