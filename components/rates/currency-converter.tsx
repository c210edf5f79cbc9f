"use client";

import { useLocale, useTranslations } from "next-intl";
import { useEffect, useId, useRef, useState } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { CopyButton } from "@/components/ui/copy-button";
import { Field, inputClass } from "@/components/ui/field";
import { BOLIVAR_SYMBOL, withCurrency } from "@/components/ui/format";
import { Panel } from "@/components/ui/panel";
import { PanelEmpty, PanelError, PanelLoading } from "@/components/ui/panel-states";
import { useFormat } from "@/components/ui/use-format";
import { DEFAULT_CONVERSION } from "@/lib/swr/rate-keys";
import type { Rate } from "@/lib/swr/types";
import { useConversion } from "@/lib/swr/use-conversion";
import { useCurrencies } from "@/lib/swr/use-currencies";
import { useNextDateWhenNoneInForce, useNextRate } from "@/lib/swr/use-latest-rate";
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
import { AmountReadingNote } from "./amount-reading-note";
import { CurrencyCombobox, type CurrencyOption } from "./currency-combobox";
import { FetchRateButton } from "./fetch-rate-button";
import { daysFrom, todayInCaracas } from "./rate-range";
import { useSelectedCurrency } from "./selected-currency";

const BOLIVAR: CurrencyOption = { code: "VES", name: "Venezuelan bolívar" };

/** How long typing may pause before the amount is converted. */
const TYPING_PAUSE_MS = 300;

/**
 * "How many bolívares is this": an amount from one currency to another (the bolívar or any stored currency)
 * at the rates of a date, or those in force today, converted as it is typed. The pickers offer only currencies with
 * stored rates and the bolívar, and what they show is exactly what is asked for; with no rate stored at all
 * the panel says so and offers the fetch instead of a form that cannot answer.
 */
export function CurrencyConverter() {
  const currencies = useCurrencies();
  // Imports are for admins (the server refuses anyone else): only they are pointed to one.
  const isAdmin = useIsAdmin();
  const t = useTranslations("converter");
  const prices = useTranslations("priceList");
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
  return (
    <Panel title={t("title")}>
      {body}
      <p className="mt-4 border-t border-slate-200 pt-3 text-sm dark:border-slate-800">
        <a
          className="inline-flex min-h-6 items-center font-medium text-indigo-700 hover:underline dark:text-indigo-300"
          href="/prices"
        >
          {prices("open")}
        </a>
      </p>
    </Panel>
  );
}

type Side = "from" | "to";

/** What the person last typed, and in which box: the other box shows its conversion. */
interface Typed {
  side: Side;
  text: string;
}

const otherSide = (side: Side): Side => (side === "from" ? "to" : "from");

/**
 * Two boxes, one per currency, as xe's and Google's converters have them: typing in either converts into the
 * other, each box read by the same rules (components/rates/amount.ts). The box typed in keeps the text as
 * written; the other shows the answer rounded to its currency's cents, which reads back as the same amount
 * when typed over.
 */
function ConverterForm({ options }: { options: CurrencyOption[] }) {
  const t = useTranslations("converter");
  const format = useFormat();
  const codes = options.map((option) => option.code);
  const [typed, setTyped] = useState<Typed>({ side: "from", text: DEFAULT_CONVERSION.amount });
  const [settled, setSettled] = useState(typed);
  // Until the answer for a newly typed-in box arrives, the box typed in before keeps its own text.
  const [leftBehind, setLeftBehind] = useState<Typed>();
  // The currency chosen in the rate card is the one converted from, and follows it when it changes there.
  const selected = useSelectedCurrency();
  const [pickedFrom, setFrom] = useState(selected.code);
  const [followed, setFollowed] = useState(selected.code);
  if (followed !== selected.code) {
    setFollowed(selected.code);
    setFrom(selected.code);
  }
  const [pickedTo, setTo] = useState<string>(DEFAULT_CONVERSION.to);
  const [date, setDate] = useState("");
  // A pick that is not (or no longer) among the stored currencies falls back to the first that is: the
  // picker shows it and the request sends it, never one thing shown and another asked.
  const from = codes.includes(pickedFrom) ? pickedFrom : codes[0];
  const to = codes.includes(pickedTo) ? pickedTo : codes.find((code) => code !== from)!;
  const currencyOf = (side: Side) => (side === "from" ? from : to);

  useEffect(() => {
    const timer = setTimeout(() => setSettled(typed), TYPING_PAUSE_MS);
    return () => clearTimeout(timer);
  }, [typed]);

  const language = useLocale();
  const parsed = parseAmount(settled.text, language);
  const amount = parsed?.value;
  const unreadable = settled.text.trim() !== "" && amount === undefined;
  // Said here, in the page's language, rather than sent for the API to refuse.
  const negative = amount?.startsWith("-") ?? false;
  const source = currencyOf(settled.side);
  const target = currencyOf(otherSide(settled.side));
  // Beside today's answer, the next rate of the currency against the bolívar once the bank has published it.
  const foreign = [from, to].filter((code) => code !== BOLIVAR.code);
  const next = useNextRate(foreign.length === 1 && !date ? foreign[0] : "USD");
  // Nothing in force yet today, only a rate published ahead: without a chosen date the converter answers at that
  // next rate, and says from when it is in force.
  const nextDate = useNextDateWhenNoneInForce(foreign.length === 1 ? foreign[0] : "USD");
  const ahead = date ? undefined : nextDate;
  // Without a date, the rates in force today in Caracas (not a rate the bank published ahead for tomorrow).
  const conversion = useConversion(
    amount === undefined || negative
      ? null
      : { amount, from: source, to: target, date: date || ahead || todayInCaracas() },
  );
  const error = conversion.error;
  // The API names its fields by the request, whose `from` is the box typed in: mapped back to the boxes.
  const sideOfField = (field: "from" | "to"): Side => (field === "from" ? settled.side : otherSide(settled.side));
  const fieldError = (field: string) => error?.fieldError(`query.${field}`);
  const pickerError = (side: Side) => fieldError(sideOfField("from") === side ? "from" : "to");
  const otherError =
    error && !["amount", "from", "to", "date"].some((field) => fieldError(field)) ? error.problem.detail : undefined;
  const result = !error && amount !== undefined ? conversion.data : undefined;
  // The answer belongs in the other box only when it converts from the box typed in, into the other's currency.
  const answer =
    result && result.from === currencyOf(typed.side) && result.to === currencyOf(otherSide(typed.side))
      ? result
      : undefined;
  if (answer && leftBehind) setLeftBehind(undefined);
  const amountError = (side: Side) =>
    side !== settled.side || side !== typed.side
      ? undefined
      : unreadable
        ? t("unreadable", { example: t("amountExample") })
        : negative
          ? t("negative")
          : fieldError("amount");
  const shownIn = (side: Side) => {
    if (side === typed.side) return typed.text;
    if (answer) return groupDigits(roundDecimal(answer.result, minorUnitDigits(answer.to)), format.locale);
    return leftBehind?.side === side ? leftBehind.text : "";
  };
  const type = (side: Side, text: string, { now = false } = {}) => {
    if (side !== typed.side) setLeftBehind(typed);
    setTyped({ side, text });
    if (now) setSettled({ side, text });
  };

  const hintId = useId();
  const picker = (side: Side) => (
    <Field label={t(side)} error={pickerError(side)}>
      {(control) => (
        <CurrencyCombobox
          {...control}
          value={currencyOf(side)}
          options={options}
          onChange={side === "from" ? setFrom : setTo}
        />
      )}
    </Field>
  );
  const amountBox = (side: Side) => (
    <AmountBox
      label={t("amountIn", { currency: currencyOf(side) })}
      currency={currencyOf(side)}
      value={shownIn(side)}
      onChange={(text) => type(side, text)}
      // What was typed before the page ran has been waited on long enough.
      onTypedEarly={(text) => type(side, text, { now: true })}
      hintId={hintId}
      error={amountError(side)}
      busy={side !== typed.side && conversion.isValidating}
    />
  );

  return (
    // Side by side only when the panel itself is wide (a container query, not the window's width): at 1440 px
    // the panel is a narrow column, where two pickers abreast would cut the currencies' names off.
    <div className="@container">
      <form
        className="grid grid-cols-1 gap-x-3 gap-y-2 @lg:grid-cols-[minmax(0,1fr)_auto_minmax(0,1fr)]"
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          setSettled(typed);
        }}
      >
        {/* Each currency's picker over its box; on a phone the second box, which answers, stays in sight under
            the first with the keyboard up. */}
        <div className="flex flex-col gap-2">
          {picker("from")}
          {amountBox("from")}
        </div>
        <div className="flex justify-center @lg:items-center">
          <Button
            variant="ghost"
            aria-label={t("swap")}
            title={t("swap")}
            onClick={() => {
              setFrom(to);
              setTo(from);
            }}
          >
            <span className="@lg:hidden">⇅</span>
            <span className="hidden @lg:inline">⇄</span>
          </Button>
        </div>
        <div className="flex flex-col gap-2">
          {picker("to")}
          {amountBox("to")}
        </div>
        <p id={hintId} className="text-xs text-slate-600 @lg:col-span-3 dark:text-slate-400">
          {t("amountHint", { example: t("amountExample") })}
        </p>
        <div aria-live="polite" className="@lg:col-span-3" aria-busy={conversion.isValidating || undefined}>
          {answer && (
            <ConversionResult
              result={answer}
              dateChosen={date !== ""}
              ahead={ahead !== undefined && answer.date === ahead}
              next={foreign.length === 1 && !date && next.data ? { code: foreign[0], rate: next.data } : undefined}
              // Said only while the reading is of the text that was converted, never of a newer one still unsent.
              read={parsed?.value === answer.amount ? { text: settled.text.trim(), parsed, language } : undefined}
            />
          )}
          {otherError && <Alert tone="error">{otherError}</Alert>}
        </div>
        <Field label={t("date")} hint={t("dateHint")} error={fieldError("date")} className="mt-1 @lg:col-span-3">
          {(control) => <DateInput {...control} value={date} onChange={setDate} />}
        </Field>
      </form>
    </div>
  );
}

/** One currency's amount: typed into, or showing what the other box's amount comes to. */
function AmountBox({
  label,
  currency,
  value,
  onChange,
  onTypedEarly,
  hintId,
  error,
  busy,
}: {
  label: string;
  currency: string;
  value: string;
  onChange: (text: string) => void;
  onTypedEarly: (text: string) => void;
  hintId: string;
  error?: string;
  busy: boolean;
}) {
  const id = useId();
  const input = useKeepTypedBeforeHydration(value, onTypedEarly);
  return (
    <div className="flex flex-col gap-1">
      {/* The picker above says the currency on screen; the box's name says it too, for a screen reader. */}
      <label htmlFor={id} className="sr-only">
        {label}
      </label>
      {/* The currency before the number, as the rest of the page writes amounts ("Bs. 23.601,01"). */}
      <div className="relative">
        <span
          aria-hidden
          className="pointer-events-none absolute inset-y-0 left-3 flex items-center text-sm font-medium text-slate-500 dark:text-slate-400"
          data-testid="amount-currency"
        >
          {currency === "VES" ? BOLIVAR_SYMBOL : currency}
        </span>
        <input
          ref={input}
          id={id}
          className={`${inputClass} h-11 pl-12! text-lg! font-semibold tabular-nums`}
          inputMode="decimal"
          autoComplete="off"
          value={value}
          aria-invalid={Boolean(error)}
          aria-describedby={[hintId, error ? `${id}-error` : null].filter(Boolean).join(" ")}
          aria-busy={busy || undefined}
          onChange={(event) => onChange(event.target.value)}
        />
      </div>
      {error && (
        <p id={`${id}-error`} className="text-sm text-red-700 dark:text-red-300">
          {error}
        </p>
      )}
    </div>
  );
}

function DateInput({
  value,
  onChange,
  ...control
}: {
  value: string;
  onChange: (date: string) => void;
  id: string;
  "aria-invalid": boolean;
  "aria-describedby"?: string;
}) {
  const input = useKeepTypedBeforeHydration(value, onChange);
  return (
    <input
      {...control}
      ref={input}
      type="date"
      className={inputClass}
      value={value}
      onChange={(event) => onChange(event.target.value)}
    />
  );
}

/**
 * The boxes are in the first HTML and can be typed into before the page's scripts have taken them over (a slow
 * phone, a busy machine): React leaves what was typed on screen but never hears of it, so nothing would be
 * converted. Once running, the box takes up what it holds.
 */
function useKeepTypedBeforeHydration(value: string, onChange: (text: string) => void) {
  const input = useRef<HTMLInputElement>(null);
  const first = useRef({ value, onChange });
  useEffect(() => {
    const typed = input.current?.value;
    if (typed !== undefined && typed !== first.current.value) first.current.onChange(typed);
  }, []);
  return input;
}

function ConversionResult({
  result,
  read,
  dateChosen,
  ahead,
  next,
}: {
  result: NonNullable<ReturnType<typeof useConversion>["data"]>;
  read?: { text: string; parsed: ParsedAmount; language: AmountLanguage };
  /** Whether the person chose the date: only then is a date without rates of its own worth saying. */
  dateChosen: boolean;
  /** Whether the rates are the next ones, converted with because none is in force yet today. */
  ahead?: boolean;
  /** The next rate of the converted currency, published ahead of its value date. */
  next?: { code: string; rate: Rate };
}) {
  const t = useTranslations("converter");
  const format = useFormat();
  const language = format.locale;
  const money = roundDecimal(result.result, minorUnitDigits(result.to));
  // The amount with the decimals the person typed ("1.250,50", not "1.250,5"), in the page's writing.
  const amount = groupDigits(read?.parsed.written ?? result.amount, language);
  const inverse = Number(result.rate) > 0 ? (1 / Number(result.rate)).toFixed(12) : undefined;
  return (
    <div className="rounded-md bg-slate-50 p-3 dark:bg-slate-800/60" data-testid="conversion-result">
      <p className="text-lg font-semibold tabular-nums break-words">
        {withCurrency(amount, result.from)} ={" "}
        <span title={t("beforeRounding", { amount: withCurrency(groupDigits(result.result, language), result.to) })}>
          {withCurrency(groupDigits(money, language), result.to)}
        </span>
      </p>
      <p className="mt-1 text-sm text-slate-600 tabular-nums dark:text-slate-400">
        {withCurrency("1", result.from)} = {withCurrency(formatRateText(result.rate, language), result.to)}
        {inverse && result.from !== result.to && (
          <span className="block" data-testid="inverse-rate">
            {withCurrency("1", result.to)} = {withCurrency(formatRateText(inverse, language), result.from)}
          </span>
        )}
      </p>
      {read?.parsed.reading && <AmountReadingNote text={read.text} parsed={read.parsed} language={read.language} />}
      <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">
        {t.rich("ratesOf", {
          date: format.day(result.date),
          time: (chunks) => <time dateTime={result.date}>{chunks}</time>,
        })}
        {result.requested_date && dateChosen && (
          <>
            {" "}
            {t("nearestEarlier", {
              date: format.day(result.requested_date),
              days: daysFrom(result.date, result.requested_date),
            })}
          </>
        )}
      </p>
      {ahead && (
        <p className="mt-1 text-sm text-amber-900 dark:text-amber-200" data-testid="converter-ahead">
          {t.rich("ahead", {
            day: format.weekday(result.date),
            time: (chunks) => <time dateTime={result.date}>{chunks}</time>,
          })}
        </p>
      )}
      {next && next.rate.date > result.date && (
        <p className="mt-1 text-sm text-slate-600 tabular-nums dark:text-slate-400" data-testid="converter-next-rate">
          {t.rich("nextRate", {
            code: next.code,
            rate: formatRateText(String(next.rate.dollar), language),
            day: format.weekday(next.rate.date),
            time: (chunks) => <time dateTime={next.rate.date}>{chunks}</time>,
          })}
        </p>
      )}
      <ShareResult
        text={t("shareText", {
          amount: withCurrency(amount, result.from),
          result: withCurrency(groupDigits(money, language), result.to),
          date: format.day(result.date),
        })}
      />
    </div>
  );
}

/**
 * Copy the result as a line of text ("100 USD = Bs. 23.645,87 · BCV, 26 nov 2026"), and share it where the
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
