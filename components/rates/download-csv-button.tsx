"use client";

import { useTranslations } from "next-intl";
import { Button, buttonClassName } from "@/components/ui/button";
import type { RateHistory } from "@/lib/swr/types";
import { ratesCsvUrl } from "@/lib/swr/use-rates";
import { useSelectedCurrency } from "./selected-currency";

/**
 * Downloads the shown range as CSV from the server's streamed export (GET /rates/history?format=csv), so that
 * a long range costs the browser nothing and the file is the one programs get. The server names it after the
 * currency and the first and last dates in it ("bcv-rates_EUR_2025-10-02_2025-10-14.csv"), not the range asked.
 */
export function DownloadCsvButton({ history }: { history: RateHistory | undefined }) {
  const t = useTranslations("history");
  const currency = useSelectedCurrency();
  if (!history || history.rates.length === 0) {
    return (
      <Button size="sm" disabled>
        {t("downloadCsv")}
      </Button>
    );
  }
  const range = { start_date: history.start_date, end_date: history.end_date };
  return (
    // `download` without a name: the server's Content-Disposition names the file.
    <a href={ratesCsvUrl(range, currency.code)} download className={buttonClassName("secondary", "sm")}>
      {t("downloadCsv")}
    </a>
  );
}
