"use client";

import { useLocale, useTranslations } from "next-intl";
import { useEffect, useState } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { CopyButton } from "@/components/ui/copy-button";
import { Field, inputClass } from "@/components/ui/field";
import { Panel } from "@/components/ui/panel";
import { PanelEmpty, PanelError, PanelLoading } from "@/components/ui/panel-states";
import { useFormat } from "@/components/ui/use-format";
import { useConversion } from "@/lib/swr/use-conversion";
import { useCurrencies } from "@/lib/swr/use-currencies";
import { useIsAdmin } from "@/lib/swr/use-me";
import {
  type AmountLanguage,
  formatRateText,
  groupDigits,
  minorUnitDigits,
  type ParsedAmount,
  parseAmount,
  roundDecimal,
} from "./amount";
import { CurrencyCombobox, type CurrencyOption } from "./currency-combobox";
import { FetchRateButton } from "./fetch-rate-button";
import { daysFrom } from "./rate-range";
import { useSelectedCurrency } from "./selected-currency";

const BOLIVAR: CurrencyOption = { code: "VES", name: "Venezuelan bolívar" };

/** How long typing may pause before the amount is converted. */
const TYPING_PAUSE_MS = 300;

/**
 * "How many bolívares is this": an amount from one currency to another (the bolívar or any stored currency)
 * at the rates of a date, or the latest, converted as it is typed. The pickers offer only currencies with
 * stored rates and the bolívar, and what they show is exactly what is asked for; with no rate stored at all
 * the panel says so and offers the fetch instead of a form that cannot answer.
 */
export function CurrencyConverter() {
  const currencies = useCurrencies();
  // Imports are for admins (the server refuses anyone else): only they are pointed to one.
  const isAdmin = useIsAdmin();
  const t = useTranslations("converter");
  let body: React.ReactNode;
  if (currencies.error) {
    body = <PanelError error={currencies.error} onRetry={() => void currencies.mutate()} className="h-48" />;
  } else if (!currencies.data) {
    body = <PanelLoading label={t("loading")} className="h-48" />;
  } else if (currencies.data.currencies.length === 0) {
    body = (
      <PanelEmpty className="min-h-48">
        <p data-testid="converter-empty">{t("empty")}</p>
        <FetchRateButton variant="primary" />
        {isAdmin && (
          <p className="text-xs">
            {t.rich("importHint", {
              link: (chunks) => (
                <a className="underline" href="#latest-rate">
                  {chunks}
                </a>
              ),
            })}
          </p>
        )}
      </PanelEmpty>
    );
  } else {
    body = <ConverterForm options={[...currencies.data.currencies, BOLIVAR]} />;
  }
  return <Panel title={t("title")}>{body}</Panel>;
}

function ConverterForm({ options }: { options: CurrencyOption[] }) {
  const t = useTranslations("converter");
  const codes = options.map((option) => option.code);
  const [amountText, setAmountText] = useState("100");
  const [settledText, setSettledText] = useState(amountText);
  // The currency chosen in the rate card is the one converted from, and follows it when it changes there.
  const selected = useSelectedCurrency();
  const [pickedFrom, setFrom] = useState(selected.code);
  const [followed, setFollowed] = useState(selected.code);
  if (followed !== selected.code) {
    setFollowed(selected.code);
    setFrom(selected.code);
  }
  const [pickedTo, setTo] = useState("VES");
  const [date, setDate] = useState("");
  // A pick that is not (or no longer) among the stored currencies falls back to the first that is: the
  // picker shows it and the request sends it, never one thing shown and another asked.
  const from = codes.includes(pickedFrom) ? pickedFrom : codes[0];
  const to = codes.includes(pickedTo) ? pickedTo : codes.find((code) => code !== from)!;

  useEffect(() => {
    const timer = setTimeout(() => setSettledText(amountText), TYPING_PAUSE_MS);
    return () => clearTimeout(timer);
  }, [amountText]);

  const language = useLocale();
  const parsed = parseAmount(settledText, language);
  const amount = parsed?.value;
  const unreadable = settledText.trim() !== "" && amount === undefined;
  const conversion = useConversion(amount === undefined ? null : { amount, from, to, date: date || undefined });
  const error = conversion.error;
  const fieldError = (field: string) => error?.fieldError(`query.${field}`);
  const otherError =
    error && !["amount", "from", "to", "date"].some((field) => fieldError(field)) ? error.problem.detail : undefined;
  const result = !error && amount !== undefined ? conversion.data : undefined;

  return (
    // Side by side only when the panel itself is wide (a container query, not the window's width): at 1440 px
    // the panel is a narrow column, where two pickers abreast would cut the currencies' names off.
    <div className="@container">
      <form
        className="grid grid-cols-1 gap-3 @lg:grid-cols-[minmax(0,1fr)_auto_minmax(0,1fr)]"
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          setSettledText(amountText);
        }}
      >
        <Field
          label={t("amount")}
          hint={t("amountHint", { example: t("amountExample") })}
          error={unreadable ? t("unreadable", { example: t("amountExample") }) : fieldError("amount")}
          className="@lg:col-span-3"
        >
          {(control) => (
            <input
              {...control}
              className={inputClass}
              inputMode="decimal"
              autoComplete="off"
              value={amountText}
              onChange={(event) => setAmountText(event.target.value)}
            />
          )}
        </Field>
        {/* Right under the amount: on a phone it stays in sight with the keyboard up, above the pickers. */}
        <div aria-live="polite" className="@lg:col-span-3" aria-busy={conversion.isValidating || undefined}>
          {result && (
            <ConversionResult
              result={result}
              // Said only while the reading is of the text that was converted, never of a newer one still unsent.
              read={parsed?.value === result.amount ? { text: settledText.trim(), parsed, language } : undefined}
            />
          )}
          {otherError && <Alert tone="error">{otherError}</Alert>}
        </div>
        <Field label={t("from")} error={fieldError("from")}>
          {(control) => <CurrencyCombobox {...control} value={from} options={options} onChange={setFrom} />}
        </Field>
        <div className="flex items-end">
          <Button
            variant="ghost"
            aria-label={t("swap")}
            title={t("swap")}
            onClick={() => {
              setFrom(to);
              setTo(from);
            }}
          >
            ⇄
          </Button>
        </div>
        <Field label={t("to")} error={fieldError("to")}>
          {(control) => <CurrencyCombobox {...control} value={to} options={options} onChange={setTo} />}
        </Field>
        <Field label={t("date")} hint={t("dateHint")} error={fieldError("date")} className="@lg:col-span-3">
          {(control) => (
            <input
              {...control}
              type="date"
              className={inputClass}
              value={date}
              onChange={(event) => setDate(event.target.value)}
            />
          )}
        </Field>
      </form>
    </div>
  );
}

function ConversionResult({
  result,
  read,
}: {
  result: NonNullable<ReturnType<typeof useConversion>["data"]>;
  read?: { text: string; parsed: ParsedAmount; language: AmountLanguage };
}) {
  const t = useTranslations("converter");
  const format = useFormat();
  const language = format.locale;
  const money = roundDecimal(result.result, minorUnitDigits(result.to));
  const inverse = Number(result.rate) > 0 ? (1 / Number(result.rate)).toFixed(12) : undefined;
  return (
    <div className="rounded-md bg-slate-50 p-3 dark:bg-slate-800/60" data-testid="conversion-result">
      <p className="text-lg font-semibold tabular-nums break-words">
        {groupDigits(result.amount, language)} {result.from} ={" "}
        <span title={t("beforeRounding", { amount: groupDigits(result.result, language), currency: result.to })}>
          {groupDigits(money, language)}
        </span>{" "}
        {result.to}
      </p>
      <p className="mt-1 text-sm text-slate-600 tabular-nums dark:text-slate-400">
        1 {result.from} = {formatRateText(result.rate, language)} {result.to}
        {inverse && result.from !== result.to && (
          <span className="block" data-testid="inverse-rate">
            1 {result.to} = {formatRateText(inverse, language)} {result.from}
          </span>
        )}
      </p>
      {read?.parsed.reading && <AmountReadingNote text={read.text} parsed={read.parsed} language={read.language} />}
      <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">
        {t.rich("ratesOf", {
          date: format.day(result.date),
          time: (chunks) => <time dateTime={result.date}>{chunks}</time>,
        })}
        {result.requested_date && (
          <>
            {" "}
            {t("nearestEarlier", {
              date: format.day(result.requested_date),
              days: daysFrom(result.date, result.requested_date),
            })}
          </>
        )}
      </p>
      <ShareResult
        text={t("shareText", {
          amount: groupDigits(result.amount, language),
          from: result.from,
          result: groupDigits(money, language),
          to: result.to,
          date: format.day(result.date),
        })}
      />
    </div>
  );
}

/**
 * How an amount that could be read two ways was read: the value without grouping, in the language's own
 * decimal mark, and which mark did what ("“50.000” read as 50000: the dot groups thousands").
 */
function AmountReadingNote({ text, parsed, language }: ParsedAmountNote) {
  const t = useTranslations("converter");
  const reading = parsed.reading!;
  const shown = language === "es" ? parsed.value.replace(".", ",") : parsed.value;
  const how =
    "groupMark" in reading
      ? t("groups", { mark: reading.groupMark === "." ? "dot" : "comma" })
      : t("decimal", { mark: reading.decimalMark === "." ? "dot" : "comma" });
  return (
    <p className="mt-1 text-sm text-slate-600 dark:text-slate-400" data-testid="amount-reading">
      {t.rich("readAs", {
        text,
        value: shown,
        how,
        strong: (chunks) => <span className="font-medium tabular-nums">{chunks}</span>,
      })}
    </p>
  );
}

interface ParsedAmountNote {
  text: string;
  parsed: ParsedAmount;
  language: AmountLanguage;
}

/**
 * Copy the result as a line of text ("100 USD = 23.645,87 VES · BCV, 26 nov 2026"), and share it where the
 * browser can (phones: the system's share sheet). The share button appears once the page runs in a browser
 * that offers it; the first HTML has the copy alone.
 */
function ShareResult({ text }: { text: string }) {
  const t = useTranslations("converter");
  const [canShare, setCanShare] = useState(false);
  useEffect(() => setCanShare(typeof navigator.share === "function"), []);
  return (
    <div className="mt-2 flex flex-wrap items-center gap-2">
      <CopyButton text={text} label={t("copy")} />
      {canShare && (
        <Button size="sm" onClick={() => void navigator.share({ text }).catch(() => {})}>
          {t("share")}
        </Button>
      )}
    </div>
  );
}
