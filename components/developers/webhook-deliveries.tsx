"use client";

import { useTranslations } from "next-intl";
import { useCallback } from "react";
import { PanelEmpty, PanelError, PanelLoading } from "@/components/ui/panel-states";
import { useFormat } from "@/components/ui/use-format";
import type { RateWebhookDelivery } from "@/lib/swr/types";
import { useWebhookDeliveries } from "@/lib/swr/use-rate-webhooks";

type DeliveryStatus = RateWebhookDelivery["status"];

const tones: Record<DeliveryStatus, string> = {
  pending: "bg-sky-50 text-sky-800 ring-sky-300 dark:bg-sky-950 dark:text-sky-200 dark:ring-sky-800",
  delivered:
    "bg-emerald-50 text-emerald-800 ring-emerald-300 dark:bg-emerald-950 dark:text-emerald-200 dark:ring-emerald-800",
  failed: "bg-red-50 text-red-800 ring-red-300 dark:bg-red-950 dark:text-red-200 dark:ring-red-800",
};

/** A delivery's status as a pill; the word is always there, colour only repeats it. */
export function DeliveryStatusBadge({ status }: { status: DeliveryStatus }) {
  const t = useTranslations("webhooks.statuses");
  return (
    <span
      data-testid="delivery-status"
      className={`inline-flex items-center gap-1.5 rounded-full px-2 py-0.5 text-xs font-medium whitespace-nowrap ring-1 ring-inset ${tones[status]}`}
    >
      <span aria-hidden className={`size-2 rounded-full bg-current ${status === "pending" ? "animate-pulse" : ""}`} />
      {t(status)}
    </span>
  );
}

/**
 * The receiver's answer in the page's words: "answered 500" is the API's most common reason and is worded here;
 * any other (a timeout, a refused address, a connection error) stays as the API wrote it.
 */
export function useDescribeAttempt() {
  const t = useTranslations("webhooks");
  return useCallback(
    (error: string) => {
      const answered = /^answered (\d{3})$/.exec(error);
      return answered ? t("answered", { status: answered[1] }) : error;
    },
    [t],
  );
}

/** What a delivery carried: a test, or the rates of a value date. */
function useEventName() {
  const t = useTranslations("webhooks");
  const format = useFormat();
  return (delivery: RateWebhookDelivery) =>
    delivery.type === "webhook.test"
      ? t("testEvent")
      : t("publishedEvent", { date: delivery.value_date ? format.day(delivery.value_date) : "—" });
}

/**
 * A webhook's recent deliveries (GET /rates/webhooks/{id}/deliveries), newest first: when each was made, what it
 * carried, its status, the receiver's last answer, how many attempts, and when the next one comes. A table where
 * its six columns fit (lg); below, one card per delivery, so nothing scrolls sideways on a phone.
 */
export function WebhookDeliveries({ id, url }: { id: string; url: string }) {
  const t = useTranslations("webhooks.table");
  const format = useFormat();
  const eventName = useEventName();
  const describeAttempt = useDescribeAttempt();
  const { data, error, mutate } = useWebhookDeliveries(id);

  if (error) return <PanelError error={error} onRetry={() => void mutate()} className="h-32" />;
  if (!data) return <PanelLoading label={t("loading")} className="h-32" />;
  if (data.deliveries.length === 0) {
    return (
      <PanelEmpty className="h-32">
        <p>{t("none")}</p>
      </PanelEmpty>
    );
  }

  const response = (delivery: RateWebhookDelivery) =>
    delivery.last_status !== null
      ? String(delivery.last_status)
      : delivery.last_error
        ? describeAttempt(delivery.last_error)
        : "—";
  // Beside the status code: why an earlier attempt failed when a retry then succeeded, a reason the code alone does
  // not tell (a redirect not followed), and when the next attempt comes.
  const note = (delivery: RateWebhookDelivery) => {
    const parts: string[] = [];
    const error = delivery.last_error;
    if (error && delivery.status === "delivered") parts.push(t("earlierError", { error: describeAttempt(error) }));
    else if (error && delivery.last_status !== null && error !== `answered ${delivery.last_status}`) parts.push(error);
    if (delivery.status === "pending" && delivery.next_attempt_at && delivery.attempts > 0) {
      parts.push(t("nextAttempt", { time: format.dateTime(delivery.next_attempt_at) }));
    }
    return parts.join(" · ");
  };

  return (
    <div data-testid="webhook-deliveries">
      <table className="hidden w-full text-left text-sm lg:table">
        <caption className="sr-only">{t("caption", { url })}</caption>
        <thead className="text-xs text-slate-600 dark:text-slate-400">
          <tr className="border-b border-slate-200 dark:border-slate-800">
            <th scope="col" className="py-2 pr-3 font-medium">
              {t("created")}
            </th>
            <th scope="col" className="py-2 pr-3 font-medium">
              {t("event")}
            </th>
            <th scope="col" className="py-2 pr-3 font-medium">
              {t("status")}
            </th>
            <th scope="col" className="py-2 pr-3 font-medium">
              {t("response")}
            </th>
            <th scope="col" className="py-2 pr-3 text-right font-medium">
              {t("attempts")}
            </th>
            <th scope="col" className="py-2 font-medium">
              {t("lastAttempt")}
            </th>
          </tr>
        </thead>
        <tbody>
          {data.deliveries.map((delivery) => (
            <tr
              key={delivery.id}
              className="border-b border-slate-100 align-top last:border-0 dark:border-slate-800/60"
              data-testid="delivery-row"
            >
              <td className="py-2 pr-3 whitespace-nowrap tabular-nums">
                <time dateTime={delivery.created_at}>{format.dateTime(delivery.created_at)}</time>
              </td>
              <td className="py-2 pr-3">
                {eventName(delivery)}
                <code className="block text-xs break-all text-slate-600 dark:text-slate-400">{delivery.id}</code>
              </td>
              <td className="py-2 pr-3">
                <DeliveryStatusBadge status={delivery.status} />
              </td>
              <td className="py-2 pr-3">
                <span className="tabular-nums" data-testid="delivery-response">
                  {response(delivery)}
                </span>
                {note(delivery) && (
                  <span className="block text-xs break-words text-slate-600 dark:text-slate-400">{note(delivery)}</span>
                )}
              </td>
              <td className="py-2 pr-3 text-right tabular-nums">{delivery.attempts}</td>
              <td className="py-2 whitespace-nowrap tabular-nums">
                {delivery.last_attempt_at ? (
                  <time dateTime={delivery.last_attempt_at}>{format.dateTime(delivery.last_attempt_at)}</time>
                ) : (
                  "—"
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <ul className="grid grid-cols-1 gap-2 md:grid-cols-2 lg:hidden" aria-label={t("caption", { url })}>
        {data.deliveries.map((delivery) => (
          <li
            key={delivery.id}
            className="flex min-w-0 flex-col gap-1 rounded-md border border-slate-200 p-2 text-sm dark:border-slate-800"
            data-testid="delivery-card"
          >
            <div className="flex items-center justify-between gap-2">
              <span className="font-medium">{eventName(delivery)}</span>
              <DeliveryStatusBadge status={delivery.status} />
            </div>
            <p className="text-xs text-slate-600 tabular-nums dark:text-slate-400">
              <time dateTime={delivery.created_at}>{format.dateTime(delivery.created_at)}</time> ·{" "}
              {t("attemptCount", { count: delivery.attempts })}
            </p>
            <p className="break-words">
              {t("response")}: <span className="tabular-nums">{response(delivery)}</span>
              {note(delivery) && (
                <span className="block text-xs text-slate-600 dark:text-slate-400">{note(delivery)}</span>
              )}
            </p>
          </li>
        ))}
      </ul>
    </div>
  );
}
