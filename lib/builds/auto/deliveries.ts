import { getDb } from "../../db";
import { prismaErrorCode } from "../../prisma-errors";

/**
 * Webhook deliveries already taken in (WebhookDelivery), by the id the host gives each delivery and keeps when
 * it redelivers: GitHub `X-GitHub-Delivery`, Gitea `X-Gitea-Delivery` (Forgejo `X-Forgejo-Delivery`), GitLab
 * `Idempotency-Key` (the same on retries) or else `X-Gitlab-Event-UUID`. A replayed, validly signed event
 * (issue 20, item 10) is then answered without being acted on again.
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
 * Records a delivery before it is acted on; false when it was taken in before (or is being taken in now).
 * `release` forgets it again, for a delivery that could not be carried out and that the host should resend.
 */
export async function claimDelivery(
  alias: string,
  deliveryId: string,
): Promise<{ fresh: boolean; release: () => Promise<void> }> {
  const key = `${alias}:${deliveryId}`;
  const db = getDb();
  await db.webhookDelivery.deleteMany({ where: { receivedAt: { lt: new Date(Date.now() - RETENTION_MS) } } });
  try {
    await db.webhookDelivery.create({ data: { key } });
  } catch (error) {
    if (prismaErrorCode(error) === "P2002") return { fresh: false, release: async () => {} };
    throw error;
  }
  return { fresh: true, release: async () => void (await db.webhookDelivery.deleteMany({ where: { key } })) };
}
