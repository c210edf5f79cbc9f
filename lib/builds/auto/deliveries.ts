import crypto from "node:crypto";
import { getDb } from "../../db";
import { prismaErrorCode } from "../../http/prisma-errors";

/**
 * Webhook deliveries already taken in (WebhookDelivery), by the id the host gives each delivery and keeps when
 * it redelivers: GitHub `X-GitHub-Delivery`, Gitea `X-Gitea-Delivery` (Forgejo `X-Forgejo-Delivery`), GitLab
 * `Idempotency-Key` (the same on retries) or else `X-Gitlab-Event-UUID`. A replayed, validly signed event
 * is then answered without being acted on again.
 */
const RETENTION_MS = 30 * 24 * 3600 * 1000;

export function deliveryIdOf(headers: Headers): string | null {
  for (const name of [
    "x-github-delivery",
    "x-gitea-delivery",
    "x-forgejo-delivery",
    "idempotency-key",
    "x-gitlab-event-uuid",
  ]) {
    const value = headers.get(name)?.trim();
    if (value) return `${name}:${value.slice(0, 200)}`;
  }
  return null;
}

/**
 * What a delivery is known by: its id, when the host sends one, and always the digest of its body. The id is a
 * header the signature does not cover, so a signed body sent again under a new id would pass as new; the body
 * is what the signature covers, and a host's own redelivery repeats both.
 */
export function deliveryKeysOf(headers: Headers, body: Buffer): string[] {
  const id = deliveryIdOf(headers);
  const digest = `body-sha256:${crypto.createHash("sha256").update(body).digest("hex")}`;
  return id === null ? [digest] : [id, digest];
}

/**
 * Records a delivery under each of its keys before it is acted on, all or none; false when any was taken in
 * before (or is being taken in now). `release` forgets them again, for a delivery that could not be carried out
 * and that the host should resend.
 */
export async function claimDelivery(
  alias: string,
  deliveryKeys: string[],
): Promise<{ fresh: boolean; release: () => Promise<void> }> {
  const keys = deliveryKeys.map((key) => `${alias}:${key}`);
  const db = getDb();
  await db.webhookDelivery.deleteMany({ where: { receivedAt: { lt: new Date(Date.now() - RETENTION_MS) } } });
  try {
    await db.$transaction(keys.map((key) => db.webhookDelivery.create({ data: { key } })));
  } catch (error) {
    if (prismaErrorCode(error) === "P2002") return { fresh: false, release: async () => {} };
    throw error;
  }
  return {
    fresh: true,
    release: async () => void (await db.webhookDelivery.deleteMany({ where: { key: { in: keys } } })),
  };
}
