import { useSession } from "next-auth/react";
import useSWR from "swr";
import { type ApiError, request } from "./fetcher";
import type { RateWebhook, RateWebhookDelivery } from "./types";

export const RATE_WEBHOOKS_KEY = "/rates/webhooks";
export const webhookDeliveriesKey = (id: string) => `${RATE_WEBHOOKS_KEY}/${id}/deliveries`;

/** While a delivery waits for its attempt, its outcome comes within seconds: ask again that soon. */
const PENDING_POLL_MS = 1_500;
const IDLE_POLL_MS = 30_000;

const anyPending = (deliveries: (RateWebhookDelivery | null)[] | undefined) =>
  deliveries?.some((delivery) => delivery?.status === "pending") ?? false;

/** The signed-in user's id: keys carry it, so signing in as someone else never shows the previous person's. */
function useUserId(): string | undefined {
  const { data: session, status } = useSession();
  return status === "authenticated" ? (session?.user as { id?: string } | undefined)?.id : undefined;
}

/**
 * The signed-in user's webhooks, each with its newest delivery (`null` key while signed out). Polls quickly while
 * a newest delivery is pending (a test just sent), slowly otherwise (a new value date queues deliveries too).
 */
export function useRateWebhooks() {
  const userId = useUserId();
  return useSWR<{ webhooks: RateWebhook[] }, ApiError, readonly [string, string] | null>(
    userId ? [RATE_WEBHOOKS_KEY, userId] : null,
    ([url]) => request(url),
    {
      refreshInterval: (data) =>
        anyPending(data?.webhooks.map((webhook) => webhook.last_delivery)) ? PENDING_POLL_MS : IDLE_POLL_MS,
    },
  );
}

/** A webhook's newest deliveries, newest first (`null`: not asked); polls quickly while one is pending. */
export function useWebhookDeliveries(id: string | null) {
  const userId = useUserId();
  return useSWR<{ deliveries: RateWebhookDelivery[] }, ApiError, readonly [string, string] | null>(
    id && userId ? [webhookDeliveriesKey(id), userId] : null,
    ([url]) => request(url),
    { refreshInterval: (data) => (anyPending(data?.deliveries) ? PENDING_POLL_MS : IDLE_POLL_MS) },
  );
}

/** Whether an SWR key is one of the webhook resources, to revalidate them after a change. */
export const isRateWebhooksKey = (key: unknown) =>
  Array.isArray(key) && typeof key[0] === "string" && key[0].startsWith(RATE_WEBHOOKS_KEY);
