"use client";

import { Button } from "@/components/ui/button";
import type { RateHistory } from "@/lib/swr/types";
import { ratesToCsv } from "./rate-table";
import { useSelectedCurrency } from "./selected-currency";

/**
 * "bcv-rates_EUR_2025-10-02_2025-10-14.csv": the currency, and the first and last dates that are in the file
 * (not the range asked for, which may start years before the first stored rate).
 */
export function csvFileName(currency: string, rates: { date: string }[]): string {
  // Newest first: the last entry is the oldest.
  return `bcv-rates_${currency}_${rates[rates.length - 1].date}_${rates[0].date}.csv`;
}

/** Downloads the shown range as a CSV file, made in the browser from the data already on screen. */
export function DownloadCsvButton({ history }: { history: RateHistory | undefined }) {
  const currency = useSelectedCurrency();
  function download() {
    if (!history) return;
    const blob = new Blob([ratesToCsv(history.rates, currency.code === "USD" ? "dollar" : currency.code)], { type: "text/csv;charset=utf-8" });
    const url = URL.createObjectURL(blob);
    const link = document.createElement("a");
    link.href = url;
    link.download = csvFileName(currency.code, history.rates);
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
