"use client";

import { useTranslations } from "next-intl";
import { useRef, useState } from "react";
import { useSWRConfig } from "swr";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { useFormat } from "@/components/ui/use-format";
import { ApiError, requestWithStatus } from "@/lib/swr/fetcher";
import type { ImportSummary } from "@/lib/swr/types";
import { CURRENCIES_KEY } from "@/lib/swr/use-currencies";
import { isRatesKey } from "@/lib/swr/use-rates";

/**
 * Imports one of the central bank's quarterly workbooks (.xls) through POST /rates/import, and says what it
 * added, changed, kept and skipped. Rendered for admins only (the server refuses anyone else): values the
 * bank's home page stored are kept unless "Replace home-page values" is ticked.
 */
export function ImportWorkbook() {
  const t = useTranslations("importWorkbook");
  const format = useFormat();
  const { mutate } = useSWRConfig();
  const input = useRef<HTMLInputElement>(null);
  const [busy, setBusy] = useState(false);
  const [summary, setSummary] = useState<ImportSummary>();
  const [error, setError] = useState<string>();
  const [overwrite, setOverwrite] = useState(false);

  async function upload(file: File) {
    setBusy(true);
    setSummary(undefined);
    setError(undefined);
    try {
      const form = new FormData();
      form.append("file", file, file.name);
      form.append("overwrite", String(overwrite));
      const { data } = await requestWithStatus<ImportSummary>("/rates/import", { method: "POST", body: form });
      setSummary(data);
      await mutate((key) => isRatesKey(key) || key === CURRENCIES_KEY);
    } catch (caught) {
      setError(caught instanceof ApiError ? caught.problem.detail : t("failed"));
    } finally {
      setBusy(false);
      if (input.current) input.current.value = "";
    }
  }

  return (
    <div className="flex flex-col items-start gap-2">
      <div className="flex flex-wrap items-center gap-2">
        <input
          ref={input}
          type="file"
          accept=".xls,application/vnd.ms-excel"
          className="sr-only"
          // Opened by the button below: a tab stop of its own would be an unnamed second stop for one action.
          tabIndex={-1}
          aria-hidden
          aria-label={t("file")}
          data-testid="import-workbook-file"
          onChange={(event) => {
            const file = event.target.files?.[0];
            if (file) void upload(file);
          }}
        />
        <Button busy={busy} onClick={() => input.current?.click()}>
          {t("button")}
        </Button>
        <label className="flex items-center gap-1 text-xs text-slate-600 dark:text-slate-400">
          <input type="checkbox" checked={overwrite} onChange={(event) => setOverwrite(event.target.checked)} />
          {t("replace")}
        </label>
      </div>
      <p className="text-xs text-slate-600 dark:text-slate-400">{t("hint")}</p>
      {summary && (
        <Alert tone="success">
          <p>
            {t("summary", {
              file: summary.file,
              read: summary.sheets_read,
              first: format.day(summary.first_date),
              last: format.day(summary.last_date),
              added: summary.dates_added,
              changed: summary.dates_changed,
              unchanged: summary.dates_unchanged,
            })}
          </p>
          {summary.home_page_kept.length > 0 && (
            <p className="mt-1 text-xs">{t("kept", { count: summary.home_page_kept.length })}</p>
          )}
          {summary.workbook_won.length > 0 && (
            <p className="mt-1 text-xs">{t("replaced", { count: summary.workbook_won.length })}</p>
          )}
          {summary.sheets_skipped.length > 0 && (
            <details className="mt-1 text-xs">
              <summary className="cursor-pointer">{t("skipped", { count: summary.sheets_skipped.length })}</summary>
              <ul className="mt-1 list-disc pl-4">
                {summary.sheets_skipped.map((skipped) => (
                  <li key={skipped.sheet}>
                    {skipped.sheet}: {skipped.reason}
                  </li>
                ))}
              </ul>
            </details>
          )}
        </Alert>
      )}
      {error && <Alert tone="error">{error}</Alert>}
    </div>
  );
}
