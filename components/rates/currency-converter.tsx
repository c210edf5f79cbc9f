"use client";

import { useState } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Field, inputClass } from "@/components/ui/field";
import { formatDay } from "@/components/ui/format";
import { Panel } from "@/components/ui/panel";
import { ApiError, request } from "@/lib/swr/fetcher";
import type { Conversion } from "@/lib/swr/types";
import { useCurrencies } from "@/lib/swr/use-currencies";

const BOLIVAR = { code: "VES", name: "Venezuelan bolívar" };

/** Decimal text with grouped thousands, every decimal kept ("19724.56" -> "19,724.56"): no float on the way. */
function groupDigits(decimal: string): string {
  const [integer, fraction] = decimal.split(".");
  const grouped = integer.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return fraction === undefined ? grouped : `${grouped}.${fraction}`;
}

/**
 * "How many bolívares is this": an amount from one currency to another (the bolívar or any stored currency)
 * at the rates of a date, or the latest. Shows the result and the date whose rates were used, which is the
 * nearest earlier date with rates when the date asked has none (a weekend, a holiday).
 */
export function CurrencyConverter() {
  const { data } = useCurrencies();
  const currencies = [...(data?.currencies ?? [{ code: "USD", name: "US dollar" }]), BOLIVAR];
  const [amount, setAmount] = useState("100");
  const [from, setFrom] = useState("USD");
  const [to, setTo] = useState("VES");
  const [date, setDate] = useState("");
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<Conversion>();
  const [error, setError] = useState<ApiError>();

  async function convert(event: React.FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const query = new URLSearchParams({ amount: amount.trim().replace(",", "."), from, to, ...(date ? { date } : {}) });
      setResult(await request<Conversion>(`/convert?${query}`));
    } catch (caught) {
      setResult(undefined);
      setError(caught instanceof ApiError ? caught : new ApiError(0, { title: "Error", status: 0, detail: "The conversion failed. Try again." }));
    } finally {
      setBusy(false);
    }
  }

  const swap = () => {
    setFrom(to);
    setTo(from);
  };
  const options = currencies.map((currency) => (
    <option key={currency.code} value={currency.code}>
      {currency.code} · {currency.name}
    </option>
  ));
  const fieldError = (field: string) => error?.fieldError(`query.${field}`);
  const otherError = error && !["amount", "from", "to", "date"].some((field) => fieldError(field)) ? error.problem.detail : undefined;

  return (
    <Panel title="Converter">
      <form onSubmit={convert} className="grid grid-cols-1 gap-3 sm:grid-cols-2" noValidate>
        <Field label="Amount" error={fieldError("amount")} className="sm:col-span-2">
          {(control) => (
            <input {...control} className={inputClass} inputMode="decimal" value={amount} onChange={(event) => setAmount(event.target.value)} />
          )}
        </Field>
        <Field label="From" error={fieldError("from")}>
          {(control) => (
            <select {...control} className={inputClass} value={from} onChange={(event) => setFrom(event.target.value)}>
              {options}
            </select>
          )}
        </Field>
        <Field label="To" error={fieldError("to")}>
          {(control) => (
            <select {...control} className={inputClass} value={to} onChange={(event) => setTo(event.target.value)}>
              {options}
            </select>
          )}
        </Field>
        <Field label="Date" hint="Empty: the latest rates." error={fieldError("date")}>
          {(control) => <input {...control} type="date" className={inputClass} value={date} onChange={(event) => setDate(event.target.value)} />}
        </Field>
        <div className="flex items-end gap-2 pb-[1.375rem]">
          <Button variant="primary" type="submit" busy={busy}>
            Convert
          </Button>
          <Button variant="ghost" onClick={swap} aria-label="Swap the currencies">
            ⇄ Swap
          </Button>
        </div>
      </form>
      <div aria-live="polite" className="mt-3">
        {result && (
          <div className="rounded-md bg-slate-50 p-3 dark:bg-slate-800/60" data-testid="conversion-result">
            <p className="text-lg font-semibold tabular-nums break-words">
              {groupDigits(result.amount)} {result.from} = {groupDigits(result.result)} {result.to}
            </p>
            <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">
              1 {result.from} = {groupDigits(result.rate)} {result.to} · rates of{" "}
              <time dateTime={result.date}>{formatDay(result.date)}</time>
              {result.requested_date && <> (no rates on {formatDay(result.requested_date)}: the nearest earlier date)</>}
            </p>
          </div>
        )}
        {otherError && <Alert tone="error">{otherError}</Alert>}
      </div>
    </Panel>
  );
}
