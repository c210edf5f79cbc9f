"use client";

import { useTranslations } from "next-intl";
import { useEffect, useState } from "react";
import { BOLIVAR_SYMBOL, withCurrency } from "@/components/ui/format";
import { Panel } from "@/components/ui/panel";
import { PanelEmpty, PanelError, PanelLoading } from "@/components/ui/panel-states";
import { useFormat } from "@/components/ui/use-format";
import { useNow } from "@/components/ui/use-now";
import { useCurrencies } from "@/lib/swr/use-currencies";
import { useNextRate, useRateInForce } from "@/lib/swr/use-latest-rate";
import { useIsAdmin } from "@/lib/swr/use-me";
import { useRateStatus } from "@/lib/swr/use-rate-status";
import { useRates } from "@/lib/swr/use-rates";
import { EmbedLink } from "./embed-link";
import { FetchRateButton } from "./fetch-rate-button";
import { useDistanceEarlier } from "./gaps";
import { ImportWorkbook } from "./import-workbook";
import { CurrencySelect, useSelectedCurrency } from "./selected-currency";

/**
 * The rate in force today in Caracas, large, with the change from the previous stored rate and, once the bank
 * has published the next one ahead (around 5 p.m.), that one beside it with the day it comes into force; or the
 * empty state with the fetch. Which rate is today's: lib/rates/in-force.ts.
 */
export function LatestRateCard() {
  const t = useTranslations("latestRate");
  const format = useFormat();
  const earlier = useDistanceEarlier();
  const currency = useSelectedCurrency();
  const latest = useRateInForce(currency.code);
  const next = useNextRate(currency.code);
  const isAdmin = useIsAdmin();
  const status = useRateStatus();
  const currencies = useCurrencies();
  // The previous stored rate may be days (weekends, holidays) or months back: the latest date's row of the
  // history, read with include=change, names it wherever it is (one row, which the server also reads for the
  // first paint).
  const history = useRates(
    latest.data ? { start_date: latest.data.date, end_date: latest.data.date } : null,
    currency.code,
  );

  // Loading and error take the height of the loaded card (text plus the fetch button): nothing jumps.
  let body: React.ReactNode;
  if (latest.error) {
    body = <PanelError error={latest.error} onRetry={() => void latest.mutate()} className="h-[13rem]" />;
  } else if (latest.data === undefined) {
    body = <PanelLoading label={t("loading")} className="h-[13rem]" />;
  } else if (latest.data === null && next.data) {
    // Only a rate published ahead is stored (a first fetch in the evening): no rate is in force yet, and the card
    // says which one comes, rather than that nothing is stored.
    body = (
      <PanelEmpty className="h-32">
        <p>{t("onlyNext")}</p>
        <NextRate rate={next.data} />
      </PanelEmpty>
    );
  } else if (latest.data === null) {
    body = (
      <PanelEmpty className="h-32">
        <p>{t("empty")}</p>
      </PanelEmpty>
    );
  } else {
    const rate = latest.data;
    // The row of this rate (while another currency's answer is still on screen, its row is not).
    const newest = history.data?.rates[0];
    const previous = (newest?.date === rate.date && newest.dollar === rate.dollar && newest.previous) || undefined;
    const change = previous ? rate.dollar - previous.dollar : undefined;
    const direction = change === undefined || change === 0 ? "flat" : change > 0 ? "up" : "down";
    body = (
      <div className="flex min-h-[9.5rem] flex-col justify-between">
        <div>
          <p className="text-sm text-slate-600 dark:text-slate-400">
            {t("perCurrency", { currency: currency.name })} · <time dateTime={rate.date}>{format.day(rate.date)}</time>
            {status.data?.stale && <StaleBadge missed={status.data.business_days_missed} />}
          </p>
          {/* The reason in words, not in a tooltip a phone cannot show. */}
          {status.data?.stale && (
            <p className="mt-1 text-xs text-amber-900 dark:text-amber-200" data-testid="stale-reason">
              {t("staleTitle", { date: format.day(status.data.expected_value_date) })}
            </p>
          )}
          <p className="mt-1 text-[clamp(1.5rem,8.5vw,2.25rem)] font-semibold tracking-tight break-all tabular-nums sm:text-4xl 2xl:text-5xl">
            {/* The symbol before the number, as shops write it (components/ui/format.ts), smaller beside it. */}
            <span className="mr-1.5 text-[0.6em] font-medium text-slate-600 dark:text-slate-400">{BOLIVAR_SYMBOL}</span>
            <span data-testid="latest-rate">{format.rate(rate.dollar)}</span>
          </p>
          <p className="mt-2 min-h-5 text-sm tabular-nums" data-testid="latest-rate-change">
            {history.isLoading && !history.data ? (
              <span className="text-slate-500 noscript:hidden dark:text-slate-400">{t("loadingChange")}</span>
            ) : previous && change !== undefined ? (
              <span
                className={
                  direction === "up"
                    ? "text-red-700 dark:text-red-300"
                    : direction === "down"
                      ? "text-emerald-700 dark:text-emerald-300"
                      : "text-slate-600 dark:text-slate-300"
                }
              >
                <span aria-hidden>{direction === "up" ? "▲ " : direction === "down" ? "▼ " : "● "}</span>
                {format.change(change)} ({format.percent(change / previous.dollar)})
                <span className="text-slate-600 dark:text-slate-400">
                  {" "}
                  {t("versus", { date: format.day(previous.date) })}
                  {earlier(previous.date, rate.date) && `, ${earlier(previous.date, rate.date)}`}
                </span>
              </span>
            ) : (
              <span className="text-slate-600 dark:text-slate-400">{t("noEarlier")}</span>
            )}
          </p>
          {next.data && next.data.date > rate.date && <NextRate rate={next.data} />}
          <LastUpdated at={status.data?.last_success?.at} loading={status.data === undefined && !status.error} />
        </div>
      </div>
    );
  }

  return (
    <Panel title={t("title")} id="latest-rate" actions={<CurrencySelect />}>
      {body}
      {/* One button in one place for both states, so its result stays on screen when the first rate arrives. */}
      {latest.data !== undefined && !latest.error && (
        <div className="mt-4">
          <FetchRateButton variant={latest.data === null ? "primary" : "secondary"} />
        </div>
      )}
      {/* Offered for any stored currency: the badge shows its newest rate, even one older than the dollar's. */}
      {currencies.data?.currencies.some((stored) => stored.code === currency.code) && (
        <div className="mt-4 border-t border-slate-200 pt-3 dark:border-slate-800">
          <EmbedLink />
        </div>
      )}
      {/* Admins only (the server refuses anyone else). Mounted apart from the rate's state: its summary stays
          while the card reloads for another currency. */}
      {isAdmin && (
        <div className="mt-4 border-t border-slate-200 pt-4 dark:border-slate-800">
          <ImportWorkbook />
        </div>
      )}
    </Panel>
  );
}

/** The rate published ahead of its value date, with the day it comes into force. */
function NextRate({ rate }: { rate: { date: string; dollar: number } }) {
  const t = useTranslations("latestRate");
  const format = useFormat();
  return (
    <p className="mt-1 text-sm tabular-nums text-slate-700 dark:text-slate-300" data-testid="next-rate">
      {t.rich("next", {
        rate: withCurrency(format.rate(rate.dollar), "VES"),
        day: format.weekday(rate.date),
        time: (chunks) => <time dateTime={rate.date}>{chunks}</time>,
      })}
    </p>
  );
}

/**
 * The newest value date is older than the bank's habit says it should be (GET /rates/status). Never broken
 * across two lines: it moves to the next one whole.
 */
function StaleBadge({ missed }: { missed: number | null }) {
  const t = useTranslations("latestRate");
  return (
    <span
      className="ml-2 inline-block rounded bg-amber-100 px-1.5 py-0.5 text-xs font-medium whitespace-nowrap text-amber-900 dark:bg-amber-900/40 dark:text-amber-200"
      data-testid="stale-badge"
    >
      {t("stale")}
      {missed ? ` · ${t("staleMissed", { count: missed })}` : ""}
    </span>
  );
}

/**
 * When the central bank's page was last read with success (GET /rates/status), beside the value date: a rate
 * for Monday fetched on Friday evening and one fetched a minute ago read the same otherwise. Rates that only
 * came from a workbook were never fetched, and the line says so.
 */
function LastUpdated({ at, loading }: { at: string | undefined | null; loading: boolean }) {
  const t = useTranslations("latestRate");
  const format = useFormat();
  const now = useNow(30_000);
  // The full time is in the viewer's time zone, which the server rendering the first paint does not know:
  // it is added once the page runs in the browser.
  const [inBrowser, setInBrowser] = useState(false);
  useEffect(() => setInBrowser(true), []);
  return (
    <p className="mt-1 min-h-5 text-sm text-slate-600 dark:text-slate-400" data-testid="latest-rate-fetched">
      {loading ? (
        "\u00a0"
      ) : at ? (
        <>
          {t("lastUpdated")}{" "}
          {/* The age moves with the clock: the server's render and the browser's may differ by a minute. */}
          <time dateTime={at} title={inBrowser ? format.dateTime(at) : undefined} suppressHydrationWarning>
            {format.age(at, now)}
          </time>
          {inBrowser && <span className="sr-only"> ({format.dateTime(at)})</span>}
        </>
      ) : (
        t("notFetched")
      )}
    </p>
  );
}
