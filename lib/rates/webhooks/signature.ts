import crypto from "node:crypto";

/**
 * Signatures as the Standard Webhooks specification (standardwebhooks.com) makes them, so receivers may use
 * its libraries: the secret is "whsec_" + base64 of a random key; each attempt carries `webhook-id` (the
 * delivery id, the same on every retry: receivers drop duplicates by it), `webhook-timestamp` (Unix seconds
 * of the attempt: receivers refuse old ones, against replays) and `webhook-signature`, "v1," + base64 of
 * HMAC-SHA256 over `${id}.${timestamp}.${body}` with the key.
 */
const PREFIX = "whsec_";

export function newWebhookSecret(): string {
  return PREFIX + crypto.randomBytes(24).toString("base64");
}

export function signDelivery(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.slice(PREFIX.length), "base64");
  return `v1,${crypto.createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64")}`;
}
