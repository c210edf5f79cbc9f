"use client";

import { useLocale, useTranslations } from "next-intl";
import { Button, buttonClassName } from "@/components/ui/button";
import type { RateHistory } from "@/lib/swr/types";
import { ratesFileUrl } from "@/lib/swr/use-rates";
import { useSelectedCurrency } from "./selected-currency";

/**
 * Downloads the shown range from the server's export (GET /rates/history?format=csv|xlsx), so that a long range
 * costs the browser nothing and the file is the one programs get. The server names it after the currency and
 * the first and last dates in it ("bcv-rates_EUR_2025-10-02_2025-10-14.xlsx"), not the range asked. The
 * workbook comes first in Spanish: a spreadsheet set to Spanish puts a CSV's every row in column A.
 */
export function DownloadButtons({ history }: { history: RateHistory | undefined }) {
  const t = useTranslations("history");
  const locale = useLocale();
  const currency = useSelectedCurrency();
  const formats = locale === "es" ? (["xlsx", "csv"] as const) : (["csv", "xlsx"] as const);
  const label = { csv: t("downloadCsv"), xlsx: t("downloadXlsx") };
  return (
    <div className="flex flex-wrap gap-2">
      {formats.map((format) =>
        !history || history.rates.length === 0 ? (
          <Button key={format} size="sm" disabled>
            {label[format]}
          </Button>
        ) : (
          // `download` without a name: the server's Content-Disposition names the file.
          <a
            key={format}
            href={ratesFileUrl({ start_date: history.start_date, end_date: history.end_date }, currency.code, format)}
            download
            data-testid={`download-${format}`}
            className={buttonClassName("secondary", "sm")}
          >
            {label[format]}
          </a>
        ),
      )}
    </div>
  );
}
