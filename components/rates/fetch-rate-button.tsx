"use client";

import { useTranslations } from "next-intl";
import { useState } from "react";
import { useSWRConfig } from "swr";
import { useCanAct } from "@/components/auth/use-can-act";
import { Alert } from "@/components/ui/alert";
import { Button, Spinner } from "@/components/ui/button";
import { useFormat } from "@/components/ui/use-format";
import { useNow } from "@/components/ui/use-now";
import { ApiError, sendJson } from "@/lib/swr/fetcher";
import type { StoredRate } from "@/lib/swr/types";
import { isRatesKey } from "@/lib/swr/use-rates";
import { useDescribeFetchFailure } from "./fetch-failure";

type Outcome = { tone: "success"; text: string } | { tone: "error"; text: string; detail?: string };

/**
 * Asks the API to fetch the central bank's current rate (POST /rates/) and says what happens: while it
 * waits (the bank's site is slow and the server retries, so this can take half a minute), then a new date
 * stored, an existing date refreshed, or what went wrong in words for a person with the technical reason
 * one click away.
 */
export function FetchRateButton({ variant = "secondary" }: { variant?: "primary" | "secondary" }) {
  const t = useTranslations("fetchRate");
  const format = useFormat();
  const describeFetchFailure = useDescribeFetchFailure();
  const { canAct, hint } = useCanAct();
  const { mutate } = useSWRConfig();
  const [startedAt, setStartedAt] = useState<number>();
  const [outcome, setOutcome] = useState<Outcome>();

  async function fetchRate() {
    setStartedAt(Date.now());
    setOutcome(undefined);
    try {
      const { status, data } = await sendJson<StoredRate>("/rates/", "POST");
      const values = { rate: format.rate(data.dollar), date: format.day(data.date) };
      // The progress goes as the outcome comes: never two status messages at once.
      setStartedAt(undefined);
      setOutcome({ tone: "success", text: status === 201 ? t("stored", values) : t("refreshed", values) });
      await mutate(isRatesKey);
    } catch (error) {
      if (error instanceof ApiError) {
        const failure = describeFetchFailure(error.status, error.problem.detail);
        setOutcome({
          tone: "error",
          text: failure.text,
          detail: failure.text === error.problem.detail ? undefined : error.problem.detail,
        });
      } else {
        setOutcome({ tone: "error", text: t("failed") });
      }
    } finally {
      setStartedAt(undefined);
    }
  }

  return (
    <div className="flex flex-col items-start gap-2">
      <div className="flex flex-wrap items-center gap-2">
        <Button
          variant={variant}
          busy={startedAt !== undefined}
          disabled={!canAct}
          onClick={fetchRate}
          aria-describedby={hint ? "fetch-rate-hint" : undefined}
        >
          {t("button")}
        </Button>
        {hint && (
          <span id="fetch-rate-hint" className="text-xs text-slate-600 dark:text-slate-400">
            {hint}
          </span>
        )}
      </div>
      {startedAt !== undefined && <FetchProgress startedAt={startedAt} />}
      {outcome && (
        <Alert tone={outcome.tone}>
          <p>{outcome.text}</p>
          {outcome.tone === "error" && outcome.detail && (
            <details className="mt-1 text-xs">
              <summary className="cursor-pointer">{t("technical")}</summary>
              <p className="mt-1 break-all">{outcome.detail}</p>
            </details>
          )}
        </Alert>
      )}
    </div>
  );
}

/** What is happening while the server asks the bank, with the seconds waited so far. */
function FetchProgress({ startedAt }: { startedAt: number }) {
  const t = useTranslations("fetchRate");
  const now = useNow(1_000);
  const seconds = Math.max(0, Math.floor((now - startedAt) / 1_000));
  return (
    <p
      role="status"
      className="flex items-start gap-2 text-sm text-slate-700 dark:text-slate-300"
      data-testid="fetch-progress"
    >
      <Spinner className="mt-0.5 size-3.5 shrink-0" />
      <span>
        {t("asking")} <span className="tabular-nums">{seconds} s</span>
        {seconds >= 3 && <span className="block text-xs text-slate-600 dark:text-slate-400">{t("slow")}</span>}
      </span>
    </p>
  );
}
