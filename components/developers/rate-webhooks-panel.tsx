"use client";

import { useSession } from "next-auth/react";
import { useTranslations } from "next-intl";
import { useEffect, useId, useState } from "react";
import { useSWRConfig } from "swr";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { Panel } from "@/components/ui/panel";
import { PanelEmpty, PanelError, PanelLoading } from "@/components/ui/panel-states";
import { useFormat } from "@/components/ui/use-format";
import { ApiError, sendJson } from "@/lib/swr/fetcher";
import type { RateWebhook, RateWebhookDelivery } from "@/lib/swr/types";
import { isRateWebhooksKey, useRateWebhooks, useWebhookDeliveries } from "@/lib/swr/use-rate-webhooks";
import { AddWebhookDialog } from "./add-webhook-dialog";
import { DeliveryStatusBadge, useDescribeAttempt, WebhookDeliveries } from "./webhook-deliveries";

const ADD_BUTTON_ID = "add-rate-webhook";

/**
 * The signed-in user's rate webhooks (GET /rates/webhooks), managed as the API manages them: add one (its secret
 * shown once), send a test and see its outcome, see the recent deliveries, delete. Signed out, the panel says what
 * webhooks do and to sign in; before the session is known (and without JavaScript) it says nothing is loading.
 */
export function RateWebhooksPanel() {
  const t = useTranslations("webhooks");
  const { status } = useSession();
  const [adding, setAdding] = useState(false);
  const webhooks = useRateWebhooks();
  // A deleted webhook's item goes with its focused button: the focus goes to the panel's first action instead of
  // the page's start, once the item and its confirmation are gone.
  const [deletions, setDeletions] = useState(0);
  useEffect(() => {
    if (deletions > 0) document.getElementById(ADD_BUTTON_ID)?.focus();
  }, [deletions]);

  let body: React.ReactNode = null;
  if (status === "authenticated") {
    if (webhooks.error) {
      body = <PanelError error={webhooks.error} onRetry={() => void webhooks.mutate()} className="h-32" />;
    } else if (!webhooks.data) {
      body = <PanelLoading label={t("loading")} className="h-32" />;
    } else if (webhooks.data.webhooks.length === 0) {
      body = (
        <PanelEmpty className="h-32">
          <p>{t("none")}</p>
        </PanelEmpty>
      );
    } else {
      body = (
        <ul aria-label={t("list")} className="flex flex-col gap-3">
          {webhooks.data.webhooks.map((webhook) => (
            <WebhookItem key={webhook.id} webhook={webhook} onDeleted={() => setDeletions((count) => count + 1)} />
          ))}
        </ul>
      );
    }
  }

  return (
    <Panel
      title={t("title")}
      id="rate-webhooks"
      actions={
        <>
          {status === "unauthenticated" && (
            <span className="text-xs text-slate-600 dark:text-slate-400" id="add-rate-webhook-hint">
              {t("signedOut")}
            </span>
          )}
          <Button
            id={ADD_BUTTON_ID}
            variant="primary"
            disabled={status !== "authenticated"}
            aria-describedby={status === "unauthenticated" ? "add-rate-webhook-hint" : undefined}
            onClick={() => setAdding(true)}
          >
            {t("add")}
          </Button>
        </>
      }
    >
      <p className="mb-3 max-w-prose text-sm text-slate-600 dark:text-slate-400">{t("intro")}</p>
      <noscript>
        <p className="mb-3 text-sm text-slate-700 dark:text-slate-300">
          {t.rich("noScript", {
            docs: (chunks) => (
              <a className="text-indigo-700 underline dark:text-indigo-300" href="/docs#/Rate%20webhooks">
                {chunks}
              </a>
            ),
          })}
        </p>
      </noscript>
      {body}
      <AddWebhookDialog open={adding} onClose={() => setAdding(false)} />
    </Panel>
  );
}

/** One webhook: where it posts, what it carries, how its last delivery went, and its actions. */
function WebhookItem({ webhook, onDeleted }: { webhook: RateWebhook; onDeleted: () => void }) {
  const t = useTranslations("webhooks");
  const format = useFormat();
  const describeAttempt = useDescribeAttempt();
  const { mutate } = useSWRConfig();
  const headingId = useId();
  const deliveriesId = useId();
  const [open, setOpen] = useState(false);
  const [sending, setSending] = useState(false);
  const [test, setTest] = useState<{ delivery?: RateWebhookDelivery; error?: string }>();
  const [deleting, setDeleting] = useState(false);
  const [removing, setRemoving] = useState(false);
  const [deleteError, setDeleteError] = useState<string>();
  // Asked while the list is open or a test's outcome is awaited; shared with the list below (one SWR key).
  const deliveries = useWebhookDeliveries(open || test?.delivery ? webhook.id : null);
  const last = webhook.last_delivery;

  async function sendTest() {
    setSending(true);
    setTest(undefined);
    try {
      const { data } = await sendJson<RateWebhookDelivery>(`/rates/webhooks/${webhook.id}/test`, "POST");
      setTest({ delivery: data });
      setOpen(true);
      await mutate(isRateWebhooksKey);
    } catch (error) {
      setTest({ error: error instanceof ApiError ? error.message : t("test.notSent") });
    } finally {
      setSending(false);
    }
  }

  async function remove() {
    setRemoving(true);
    setDeleteError(undefined);
    try {
      await sendJson(`/rates/webhooks/${webhook.id}`, "DELETE");
      await mutate(isRateWebhooksKey);
      onDeleted();
    } catch (error) {
      setDeleteError(error instanceof ApiError ? error.message : t("deleteDialog.failed"));
    } finally {
      setRemoving(false);
    }
  }

  // The test's newest state: from the deliveries list once it has it, else as POST answered it (pending).
  const tested =
    test?.delivery &&
    (deliveries.data?.deliveries.find((delivery) => delivery.id === test.delivery!.id) ?? test.delivery);

  return (
    <li
      className="flex min-w-0 flex-col gap-3 rounded-lg border border-slate-200 p-3 dark:border-slate-800"
      data-testid="rate-webhook"
    >
      <div className="flex flex-wrap items-start justify-between gap-x-4 gap-y-2">
        <div className="min-w-0 flex-1 basis-64">
          <h3 id={headingId} className="font-mono text-sm font-medium break-all">
            {webhook.url}
          </h3>
          <p className="mt-1 text-xs text-slate-600 dark:text-slate-400">
            {/* The one event a subscription gets (tests aside), named as the deliveries' "type" names it. */}
            <code className="rounded bg-slate-100 px-1 dark:bg-slate-800">rates.published</code>
            {" · "}
            <span data-testid="webhook-currencies">
              {webhook.currencies === "all" ? t("allCurrencies") : webhook.currencies.join(", ")}
            </span>
            {" · "}
            {t("added", { date: format.dateTime(webhook.created_at, false) })}
          </p>
        </div>
        <p
          className="flex flex-wrap items-center gap-2 text-xs text-slate-700 dark:text-slate-300"
          data-testid="last-delivery"
        >
          <span>{t("lastDelivery")}</span>
          {last ? (
            <>
              <DeliveryStatusBadge status={last.status} />
              <span className="tabular-nums">
                {last.last_status ?? (last.last_error ? describeAttempt(last.last_error) : "")}
              </span>
              <time dateTime={last.created_at} className="text-slate-600 tabular-nums dark:text-slate-400">
                {format.dateTime(last.created_at)}
              </time>
            </>
          ) : (
            <span className="text-slate-600 dark:text-slate-400">{t("noDelivery")}</span>
          )}
        </p>
      </div>
      <div className="flex flex-wrap gap-2">
        <Button size="sm" busy={sending} onClick={() => void sendTest()} aria-describedby={headingId}>
          {t("sendTest")}
        </Button>
        <Button
          size="sm"
          aria-expanded={open}
          aria-controls={deliveriesId}
          aria-describedby={headingId}
          onClick={() => setOpen((current) => !current)}
        >
          {t("deliveries")}
          <span aria-hidden className={`text-xs transition-transform ${open ? "rotate-180" : ""}`}>
            ▾
          </span>
        </Button>
        <Button size="sm" variant="danger-subtle" aria-describedby={headingId} onClick={() => setDeleting(true)}>
          {t("delete")}
        </Button>
      </div>
      {test?.error && <Alert tone="error">{test.error}</Alert>}
      {tested && <TestOutcome delivery={tested} />}
      <div id={deliveriesId} hidden={!open}>
        {open && <WebhookDeliveries id={webhook.id} url={webhook.url} />}
      </div>
      <ConfirmDialog
        open={deleting}
        title={t("deleteDialog.title")}
        confirmLabel={t("deleteDialog.confirm")}
        busy={removing}
        error={deleteError}
        onConfirm={() => void remove()}
        onClose={() => {
          setDeleting(false);
          setDeleteError(undefined);
        }}
      >
        <p className="break-words">{t("deleteDialog.body", { url: webhook.url })}</p>
      </ConfirmDialog>
    </li>
  );
}

/** How the test delivery went, said once it changes (a polite live region). */
function TestOutcome({ delivery }: { delivery: RateWebhookDelivery }) {
  const t = useTranslations("webhooks.test");
  const format = useFormat();
  const describeAttempt = useDescribeAttempt();
  const error = delivery.last_error ? describeAttempt(delivery.last_error) : "";
  if (delivery.status === "delivered") {
    return <Alert tone="success">{t("delivered", { status: String(delivery.last_status ?? "") })}</Alert>;
  }
  if (delivery.status === "failed") return <Alert tone="error">{t("failed", { error })}</Alert>;
  return (
    <Alert tone="info">
      {delivery.attempts > 0 && delivery.next_attempt_at
        ? t("retrying", { error, time: format.dateTime(delivery.next_attempt_at) })
        : t("waiting")}
    </Alert>
  );
}
