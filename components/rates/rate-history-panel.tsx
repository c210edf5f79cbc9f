"use client";

import dynamic from "next/dynamic";
import { useRouter, useSearchParams } from "next/navigation";
import { useTranslations } from "next-intl";
import { Panel } from "@/components/ui/panel";
import { PanelEmpty, PanelError, PanelLoading } from "@/components/ui/panel-states";
import { hrefWith } from "@/components/ui/query-string";
import { useFormat } from "@/components/ui/use-format";
import { useNextRate, useRateInForce } from "@/lib/swr/use-latest-rate";
import { type DateRange, useRates } from "@/lib/swr/use-rates";
import { DownloadButtons } from "./download-buttons";
import {
  checkCustomRange,
  type RangeSelection,
  rangeOfSelection,
  selectionFromQuery,
  selectionToQuery,
  todayInCaracas,
} from "./rate-range";
import { RateRangePicker } from "./rate-range-picker";
import { RateStats } from "./rate-stats";
import { RateTable } from "./rate-table";
import { useSelectedCurrency } from "./selected-currency";

// The chart library is the largest script of the page: loaded after the first paint, which already shows the
// rate and the table (rendered on the server); its place is kept so nothing moves when it arrives.
const loadRateChart = () => import("./rate-chart").then((module) => module.RateChart);
// Asked for as soon as this module runs, not when the chart first renders (after hydration): on a busy
// phone that wait is seconds.
if (typeof window !== "undefined") void loadRateChart();
const RateChart = dynamic(loadRateChart, { ssr: false, loading: () => <ChartLoading /> });

function ChartLoading() {
  const t = useTranslations("history");
  return <PanelLoading label={t("loadingChart")} withoutScripts={t("chartNeedsScript")} className="h-72" />;
}

/**
 * The history of the chosen range: its summary, a chart and a table (newest first), with the CSV download.
 * The range lives in the query string (`?range=1y`, `?from=…&to=…`), so a reload or a shared link shows the
 * same one. A custom range is checked here first; a range with a problem is not asked for, and nothing of a
 * previously shown range stays on screen beside the problem.
 */
export function RateHistoryPanel() {
  const t = useTranslations("history");
  const format = useFormat();
  const params = useSearchParams();
  const router = useRouter();
  const selection = selectionFromQuery(params);
  const today = todayInCaracas();
  const problems = selection.preset === "custom" ? checkCustomRange(selection.start, selection.end, today) : [];
  const range: DateRange | null = rangeOfSelection(selection, today);
  const currency = useSelectedCurrency();
  const history = useRates(range, currency.code);
  const latest = useRateInForce();
  const next = useNextRate();

  // SWR keeps the previous range's answer while the next loads: only an answer for this range is shown.
  const data =
    range &&
    !history.error &&
    history.data?.start_date === range.start_date &&
    history.data?.end_date === range.end_date
      ? history.data
      : undefined;
  // "All" starts at the first stored date, not ten years before today.
  const shownStart =
    data && selection.preset === "all" && data.rates.length > 0
      ? data.rates[data.rates.length - 1].date
      : data?.start_date;

  const choose = (next: RangeSelection) => router.replace(hrefWith(params, selectionToQuery(next)), { scroll: false });

  let chart: React.ReactNode;
  let table: React.ReactNode;
  if (problems.length > 0) {
    chart = (
      <PanelEmpty className="h-72">
        <p>{t("correctRange")}</p>
      </PanelEmpty>
    );
    table = null;
  } else if (history.error) {
    const retryable = history.error.status === 0 || history.error.status >= 500;
    chart = (
      <PanelError
        error={history.error}
        onRetry={retryable ? () => void history.mutate() : undefined}
        className="h-72"
      />
    );
    table = null;
  } else if (!data) {
    chart = <PanelLoading label={t("loadingHistory")} className="h-72" />;
    table = <PanelLoading label={t("loadingTable")} className="h-56 2xl:h-72" />;
  } else if (data.rates.length === 0) {
    // A rate published ahead alone (a first fetch in the evening) is stored, only not yet in this range.
    const nothingStored = latest.data === null && next.data === null;
    chart = (
      <PanelEmpty className="h-72">
        <p>
          {nothingStored
            ? t("nothingStored")
            : t("noneBetween", { start: format.day(data.start_date), end: format.day(data.end_date) })}
        </p>
      </PanelEmpty>
    );
    table = <PanelEmpty className="h-56 2xl:h-72">{t("noneInRange")}</PanelEmpty>;
  } else {
    chart = (
      <div className="flex flex-col gap-3">
        <RateStats rates={data.rates} />
        <RateChart rates={data.rates} start={shownStart!} end={data.end_date} />
      </div>
    );
    table = <RateTable rates={data.rates} />;
  }

  return (
    <Panel
      title={t("title")}
      actions={
        <RateRangePicker
          key={selection.preset === "custom" ? `${selection.start}:${selection.end}` : "preset"}
          value={selection}
          onChange={choose}
          problems={problems}
          current={data ?? range ?? undefined}
          today={today}
        />
      }
    >
      {/* Side by side only where the table's three columns fit; otherwise the table goes under the chart. */}
      <div className="grid grid-cols-1 gap-4 2xl:grid-cols-[minmax(0,3fr)_minmax(26rem,2fr)]">
        <div className="min-w-0" aria-busy={history.isValidating || undefined}>
          {chart}
        </div>
        {table && (
          <div className="flex min-w-0 flex-col gap-2">
            {table}
            <div className="flex flex-wrap items-center justify-between gap-2 text-xs text-slate-600 dark:text-slate-400">
              <span data-testid="rates-count">
                {data
                  ? t("count", {
                      count: data.rates.length,
                      start: format.day(shownStart!),
                      end: format.day(data.end_date),
                    })
                  : " "}
              </span>
              <DownloadButtons history={data} />
            </div>
          </div>
        )}
      </div>
    </Panel>
  );
}
