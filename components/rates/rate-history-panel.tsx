"use client";

import { useState } from "react";
import { formatDay } from "@/components/ui/format";
import { Panel } from "@/components/ui/panel";
import { PanelEmpty, PanelError, PanelLoading } from "@/components/ui/panel-states";
import { useLatestRate } from "@/lib/swr/use-latest-rate";
import { useRates } from "@/lib/swr/use-rates";
import { useSelectedCurrency } from "./selected-currency";
import { DownloadCsvButton } from "./download-csv-button";
import { RateChart } from "./rate-chart";
import { presetRange } from "./rate-range";
import { RateRangePicker, type RangeSelection } from "./rate-range-picker";
import { RateTable } from "./rate-table";

/** The history of the chosen range as a chart and a table (newest first), with the CSV download. */
export function RateHistoryPanel() {
  const [selection, setSelection] = useState<RangeSelection>({ preset: "30d" });
  const range = selection.preset === "custom" ? selection.range : presetRange(selection.preset);
  const currency = useSelectedCurrency();
  const history = useRates(range, currency.code);
  const latest = useLatestRate();

  let chart: React.ReactNode;
  let table: React.ReactNode;
  if (history.error) {
    chart = <PanelError error={history.error} onRetry={() => void history.mutate()} className="h-72" />;
    table = <PanelEmpty className="h-56 2xl:h-72">No rates to list.</PanelEmpty>;
  } else if (!history.data) {
    chart = <PanelLoading label="Loading the rate history" className="h-72" />;
    table = <PanelLoading label="Loading the rates table" className="h-56 2xl:h-72" />;
  } else if (history.data.rates.length === 0) {
    const nothingStored = latest.data === null;
    chart = (
      <PanelEmpty className="h-72">
        <p>
          {nothingStored
            ? "No rate is stored yet: fetch the first one from the latest rate panel."
            : `No rates stored between ${formatDay(history.data.start_date)} and ${formatDay(history.data.end_date)}.`}
        </p>
      </PanelEmpty>
    );
    table = <PanelEmpty className="h-56 2xl:h-72">No rates in this range.</PanelEmpty>;
  } else {
    chart = <RateChart rates={history.data.rates} />;
    table = <RateTable rates={history.data.rates} />;
  }

  return (
    <Panel
      title="Rate history"
      actions={<RateRangePicker value={selection} onChange={setSelection} current={history.data ?? range} />}
    >
      {/* Side by side only where the table's three columns fit; otherwise the table goes under the chart. */}
      <div className="grid gap-4 2xl:grid-cols-[minmax(0,3fr)_minmax(26rem,2fr)]">
        <div aria-busy={history.isValidating || undefined}>{chart}</div>
        <div className="flex flex-col gap-2">
          {table}
          <div className="flex items-center justify-between gap-2 text-xs text-slate-600 dark:text-slate-400">
            <span data-testid="rates-count">
              {history.data
                ? `${history.data.rates.length} rate${history.data.rates.length === 1 ? "" : "s"} · ${formatDay(history.data.start_date)} – ${formatDay(history.data.end_date)}`
                : " "}
            </span>
            <DownloadCsvButton history={history.error ? undefined : history.data} />
          </div>
        </div>
      </div>
    </Panel>
  );
}
