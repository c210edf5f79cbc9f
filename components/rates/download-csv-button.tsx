"use client";

import { Button } from "@/components/ui/button";
import type { RateHistory } from "@/lib/swr/types";
import { ratesToCsv } from "./rate-table";
import { useSelectedCurrency } from "./selected-currency";

/** Downloads the shown range as a CSV file, made in the browser from the data already on screen. */
export function DownloadCsvButton({ history }: { history: RateHistory | undefined }) {
  const currency = useSelectedCurrency();
  function download() {
    if (!history) return;
    const blob = new Blob([ratesToCsv(history.rates, currency.code === "USD" ? "dollar" : currency.code)], { type: "text/csv;charset=utf-8" });
    const url = URL.createObjectURL(blob);
    const link = document.createElement("a");
    link.href = url;
    link.download = `bcv-rates_${history.start_date}_${history.end_date}.csv`;
    link.click();
    // The click has queued the download; the object URL can go once the event loop turns.
    setTimeout(() => URL.revokeObjectURL(url), 0);
  }
  return (
    <Button size="sm" onClick={download} disabled={!history || history.rates.length === 0}>
      Download CSV
    </Button>
  );
}
