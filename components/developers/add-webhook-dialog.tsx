"use client";

import { useTranslations } from "next-intl";
import { useEffect, useRef, useState } from "react";
import { useSWRConfig } from "swr";
import { useCurrencyName } from "@/components/rates/currency-names";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { CopyButton } from "@/components/ui/copy-button";
import { Field, inputClass } from "@/components/ui/field";
import { Modal } from "@/components/ui/modal";
import { webhookUrlProblem } from "@/lib/rates/webhooks/url";
import { ApiError, sendJson } from "@/lib/swr/fetcher";
import type { CreatedRateWebhook } from "@/lib/swr/types";
import { useCurrencies } from "@/lib/swr/use-currencies";
import { isRateWebhooksKey } from "@/lib/swr/use-rate-webhooks";

/** The longest URL the API takes (lib/rates/webhooks/schemas.ts). */
const MAX_URL_LENGTH = 2000;

/**
 * "Add webhook": the form, then the signing secret, which the API answers this once. The dialog stays on the
 * secret until it is closed, so it is not gone before it could be copied.
 */
export function AddWebhookDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const t = useTranslations("webhooks");
  const { mutate } = useSWRConfig();
  const [created, setCreated] = useState<CreatedRateWebhook>();
  const close = () => {
    setCreated(undefined);
    onClose();
  };
  return (
    <Modal open={open} onClose={close} title={created ? t("secret.title") : t("form.title")}>
      {open &&
        (created ? (
          <SecretOnce created={created} onDone={close} />
        ) : (
          <WebhookForm
            onCancel={close}
            onCreated={(webhook) => {
              setCreated(webhook);
              void mutate(isRateWebhooksKey);
            }}
          />
        ))}
    </Modal>
  );
}

type FieldProblems = { url?: string; currencies?: string; other?: string };

function WebhookForm({
  onCreated,
  onCancel,
}: {
  onCreated: (webhook: CreatedRateWebhook) => void;
  onCancel: () => void;
}) {
  const t = useTranslations("webhooks.form");
  const tPanel = useTranslations("panel");
  const currencyName = useCurrencyName();
  const currencies = useCurrencies();
  const stored = currencies.data?.currencies ?? [];
  const [url, setUrl] = useState("");
  const [scope, setScope] = useState<"all" | "some">("all");
  const [chosen, setChosen] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const [problems, setProblems] = useState<FieldProblems>({});
  const urlInput = useRef<HTMLInputElement>(null);
  const someCurrencies = useRef<HTMLInputElement>(null);

  /** What the browser can tell at once, with the API's own rules (lib/rates/webhooks/url.ts), in the page's words. */
  function checkLocally(): FieldProblems {
    const found: FieldProblems = {};
    const text = url.trim();
    const problem = text ? webhookUrlProblem(text) : undefined;
    if (!text) found.url = t("enterUrl");
    else if (text.length > MAX_URL_LENGTH) found.url = t("tooLong");
    else if (problem?.kind === "not-absolute") found.url = t("notAbsolute");
    else if (problem?.kind === "not-http") found.url = t("notHttp", { protocol: problem.protocol });
    else if (problem?.kind === "credentials") found.url = t("credentials");
    if (scope === "some" && chosen.length === 0) found.currencies = t("chooseCurrency");
    return found;
  }

  /** The API's refusal, each field's message beside its field; what names no field goes above the buttons. */
  function fromApi(error: ApiError): FieldProblems {
    const urlMessage = error.fieldError("body.url");
    const refused = urlMessage?.match(/^is refused: (.*)$/);
    const sentence = (message: string) => {
      const text = message.charAt(0).toUpperCase() + message.slice(1);
      return /[.!?)]$/.test(text) ? text : `${text}.`;
    };
    const found: FieldProblems = {
      url: refused ? `${t("refused")} ${refused[1]}.` : urlMessage && sentence(urlMessage),
      currencies: error.fieldError("body.currencies") && sentence(error.fieldError("body.currencies")!),
    };
    if (!found.url && !found.currencies) {
      found.other = error.status === 0 ? tPanel("networkError") : error.message;
    }
    return found;
  }

  async function submit(event: React.FormEvent) {
    event.preventDefault();
    const local = checkLocally();
    setProblems(local);
    if (local.url || local.currencies) {
      // The first field in trouble takes the focus, so its message is read out.
      (local.url ? urlInput : someCurrencies).current?.focus();
      return;
    }
    setBusy(true);
    try {
      const { data } = await sendJson<CreatedRateWebhook>("/rates/webhooks", "POST", {
        url: url.trim(),
        currencies: scope === "all" ? "all" : chosen,
      });
      onCreated(data);
    } catch (error) {
      const found = error instanceof ApiError ? fromApi(error) : { other: t("notAdded") };
      setProblems(found);
      if (found.url) urlInput.current?.focus();
    } finally {
      setBusy(false);
    }
  }

  return (
    <form onSubmit={submit} noValidate aria-label={t("label")} className="flex flex-col gap-5">
      <Field label={t("url")} error={problems.url} hint={t("urlHint")}>
        {(control) => (
          <input
            {...control}
            ref={urlInput}
            data-autofocus
            type="url"
            inputMode="url"
            autoComplete="url"
            spellCheck={false}
            autoCapitalize="off"
            placeholder="https://example.com/hooks/bcv"
            className={`${inputClass} font-mono`}
            value={url}
            onChange={(e) => setUrl(e.target.value)}
          />
        )}
      </Field>
      <fieldset
        className="flex flex-col gap-2"
        aria-describedby={problems.currencies ? "webhook-currencies-error" : undefined}
      >
        <legend className="mb-1 text-sm font-medium text-slate-800 dark:text-slate-200">{t("currencies")}</legend>
        <label className="flex items-center gap-2 text-sm">
          <input
            type="radio"
            name="webhook-scope"
            className="size-4 accent-indigo-600"
            checked={scope === "all"}
            onChange={() => setScope("all")}
          />
          {t("all")}
        </label>
        <label className="flex items-center gap-2 text-sm">
          <input
            ref={someCurrencies}
            type="radio"
            name="webhook-scope"
            className="size-4 accent-indigo-600"
            checked={scope === "some"}
            disabled={stored.length === 0}
            onChange={() => setScope("some")}
          />
          {t("some")}
        </label>
        {currencies.data && stored.length === 0 && (
          <p className="text-xs text-slate-600 dark:text-slate-400">{t("noneStored")}</p>
        )}
        {scope === "some" && (
          <div className="grid max-h-48 grid-cols-1 gap-x-4 gap-y-1 overflow-y-auto rounded-md border border-slate-200 p-3 min-[400px]:grid-cols-2 dark:border-slate-700">
            {stored.map((currency) => (
              <label key={currency.code} className="flex min-w-0 items-center gap-2 text-sm">
                <input
                  type="checkbox"
                  className="size-4 shrink-0 accent-indigo-600"
                  checked={chosen.includes(currency.code)}
                  onChange={(e) =>
                    setChosen((current) =>
                      e.target.checked ? [...current, currency.code] : current.filter((code) => code !== currency.code),
                    )
                  }
                />
                <span className="font-mono">{currency.code}</span>
                <span className="truncate text-slate-600 dark:text-slate-400">
                  {currencyName(currency.code, currency.name)}
                </span>
              </label>
            ))}
          </div>
        )}
        {problems.currencies && (
          <p id="webhook-currencies-error" className="text-sm text-red-700 dark:text-red-300">
            {problems.currencies}
          </p>
        )}
      </fieldset>
      {problems.other && <Alert tone="error">{problems.other}</Alert>}
      <div className="flex flex-wrap justify-end gap-2">
        <Button onClick={onCancel}>{t("cancel")}</Button>
        <Button type="submit" variant="primary" busy={busy}>
          {t("submit")}
        </Button>
      </div>
    </form>
  );
}

/** The secret, shown this once, with a copy button; the focus moves here from the form that is gone. */
function SecretOnce({ created, onDone }: { created: CreatedRateWebhook; onDone: () => void }) {
  const t = useTranslations("webhooks.secret");
  const start = useRef<HTMLDivElement>(null);
  useEffect(() => start.current?.focus(), []);
  return (
    <div ref={start} tabIndex={-1} className="flex flex-col gap-4 text-sm outline-none">
      <Alert tone="success">{t("added", { url: created.url })}</Alert>
      <div className="flex flex-col gap-1">
        <p className="font-medium">{t("label")}</p>
        <code
          data-testid="webhook-secret"
          className="block rounded-md bg-slate-100 p-2 font-mono text-xs break-all select-all dark:bg-slate-800"
        >
          {created.secret}
        </code>
      </div>
      <p className="text-slate-700 dark:text-slate-300">{t("once")}</p>
      <div className="flex flex-wrap items-center justify-end gap-2">
        <CopyButton text={created.secret} label={t("copy")} />
        <Button variant="primary" onClick={onDone}>
          {t("done")}
        </Button>
      </div>
    </div>
  );
}
