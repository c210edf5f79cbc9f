"use client";

import { useState } from "react";
import { useSWRConfig } from "swr";
import { useCanAct } from "@/components/auth/use-can-act";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { formatDay, formatRate } from "@/components/ui/format";
import { ApiError, sendJson } from "@/lib/swr/fetcher";
import type { StoredRate } from "@/lib/swr/types";
import { isRatesKey } from "@/lib/swr/use-rates";

type Outcome = { tone: "success"; text: string } | { tone: "error"; text: string };

/**
 * Asks the API to fetch the central bank's current rate (POST /rates/) and says what happened: a new date
 * stored, an existing date refreshed, or the problem's detail (bank unreachable, page changed, ...).
 */
export function FetchRateButton({ variant = "secondary" }: { variant?: "primary" | "secondary" }) {
  const { canAct, hint } = useCanAct();
  const { mutate } = useSWRConfig();
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome>();

  async function fetchRate() {
    setBusy(true);
    setOutcome(undefined);
    try {
      const { status, data } = await sendJson<StoredRate>("/rates/", "POST");
      const what = status === 201 ? "Stored the new rate" : "Refreshed the stored rate";
      setOutcome({ tone: "success", text: `${what}: Bs ${formatRate(data.dollar)} for ${formatDay(data.date)}.` });
      await mutate(isRatesKey);
    } catch (error) {
      setOutcome({ tone: "error", text: error instanceof ApiError ? error.message : "The rate could not be fetched." });
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="flex flex-col items-start gap-2">
      <div className="flex flex-wrap items-center gap-2">
        <Button variant={variant} busy={busy} disabled={!canAct} onClick={fetchRate} aria-describedby={hint ? "fetch-rate-hint" : undefined}>
          Fetch latest rate
        </Button>
        {hint && (
          <span id="fetch-rate-hint" className="text-xs text-slate-600 dark:text-slate-400">
            {hint}
          </span>
        )}
      </div>
      {outcome && <Alert tone={outcome.tone}>{outcome.text}</Alert>}
    </div>
  );
}
