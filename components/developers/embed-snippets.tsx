"use client";

import { useLocale, useTranslations } from "next-intl";
import { useSyncExternalStore } from "react";
import { useSelectedCurrency } from "@/components/rates/selected-currency";
import { CopyButton } from "@/components/ui/copy-button";
import { RATE_SOURCE, RATE_SOURCE_TERMS_URL } from "@/lib/rates/source";

const noSubscription = () => () => {};

/**
 * The rate on a shop's own site, copied from here: the badge (an image) and the card (an iframe) of the currency
 * the card shows, in the page's language, with the central bank's terms beside them. Closed until opened, unless
 * `open` (the integrators' page, where they are the point).
 */
export function EmbedSnippets({ open = false }: { open?: boolean }) {
  const t = useTranslations("embedSnippets");
  const locale = useLocale();
  const currency = useSelectedCurrency();
  // The snippets go on another site, so their addresses are whole: this page's origin once it runs in a browser.
  const origin = useSyncExternalStore(
    noSubscription,
    () => window.location.origin,
    () => "",
  );
  const query = `currency=${currency.code}&lang=${locale}`;
  const badge = `/rates/badge.svg?${query}`;
  const title = t("cardTitle", { name: currency.name });
  const snippets = {
    badge: `<a href="${RATE_SOURCE.url}"><img src="${origin}${badge}" alt="${title}" height="20"></a>`,
    card: `<iframe src="${origin}/embed?${query}" title="${title}" width="320" height="150" style="border:0"></iframe>`,
  };
  return (
    <details className="group" data-testid="embed-snippets" open={open}>
      <summary className="cursor-pointer text-sm font-medium text-indigo-700 hover:underline dark:text-indigo-300">
        {t("title")}
      </summary>
      <div className="mt-3 flex flex-col gap-4 text-sm">
        <p className="text-slate-600 dark:text-slate-400">{t("intro", { name: currency.name })}</p>
        {(["badge", "card"] as const).map((kind) => (
          <div key={kind} className="flex flex-col gap-2">
            <div className="flex items-center justify-between gap-2">
              <h3 className="font-medium">{t(kind)}</h3>
              <CopyButton text={snippets[kind]} label={t("copy")} />
            </div>
            {kind === "badge" && (
              // biome-ignore lint/performance/noImgElement: an SVG made by this app, shown as other sites will show it.
              <img src={badge} alt={title} height={20} className="h-5 w-auto self-start" />
            )}
            <pre className="overflow-x-auto rounded-md bg-slate-50 p-2 text-xs whitespace-pre-wrap break-all text-slate-800 dark:bg-slate-800/60 dark:text-slate-200">
              <code>{snippets[kind]}</code>
            </pre>
          </div>
        ))}
        <p className="text-xs text-slate-600 dark:text-slate-400" data-testid="embed-terms">
          {t.rich("terms", {
            terms: (chunks) => (
              <a className="underline" href={RATE_SOURCE_TERMS_URL} target="_blank" rel="noopener noreferrer">
                {chunks}
              </a>
            ),
          })}
        </p>
      </div>
    </details>
  );
}
