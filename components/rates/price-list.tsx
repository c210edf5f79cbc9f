"use client";

import { useLocale, useTranslations } from "next-intl";
import { useEffect, useId, useState } from "react";
import { flushSync } from "react-dom";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { CopyButton } from "@/components/ui/copy-button";
import { Field, inputClass } from "@/components/ui/field";
import { BOLIVAR_SYMBOL, withCurrency } from "@/components/ui/format";
import { Panel } from "@/components/ui/panel";
import { PanelLoading } from "@/components/ui/panel-states";
import { useFormat } from "@/components/ui/use-format";
import { useConversion } from "@/lib/swr/use-conversion";
import { useNextDateWhenNoneInForce, useNextRate } from "@/lib/swr/use-latest-rate";
import { formatRateText, groupDigits, multiplyDecimal, parseAmount, roundDecimal } from "./amount";
import { AmountReadingNote } from "./amount-reading-note";
import {
  PRICE_CURRENCIES,
  type PriceCurrency,
  type PriceItem,
  type PriceReading,
  parsePastedPrices,
} from "./price-list-items";
import { todayInCaracas } from "./rate-range";

/** A price as shops write it: at least the cents ("1.2" -> "1,20" in Spanish), every decimal given kept. */
const priceText = (price: string, language: string) => {
  const [whole, cents = ""] = price.split(".");
  return `${groupDigits(`${whole}.${cents.padEnd(2, "0")}`, language as "es" | "en")}`;
};

/**
 * The text with each "Bs. 223,5000" kept on one line (a narrow phone would otherwise break after the symbol);
 * the words are unchanged, so the copied text matches what is shown.
 */
const SYMBOL_WITH_NUMBER = new RegExp(`(${BOLIVAR_SYMBOL.replace(".", "\\.")} [\\d.,]+)`);

function symbolsKeptWithNumbers(text: string): React.ReactNode[] {
  return text.split(SYMBOL_WITH_NUMBER).map((part, index) =>
    index % 2 === 1 ? (
      // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one fixed text, never reordered.
      <span key={index} className="whitespace-nowrap">
        {part}
      </span>
    ) : (
      part
    ),
  );
}

/** Where the list is kept: this browser only, nothing is sent anywhere. */
const STORAGE_KEY = "bcv-price-list";
/** The shop's name, kept beside the list (the list's own key holds its items alone, as before). */
const SHOP_NAME_KEY = "bcv-price-list-shop";

function readStoredItems(): PriceItem[] {
  try {
    const stored = JSON.parse(window.localStorage.getItem(STORAGE_KEY) ?? "[]");
    return Array.isArray(stored)
      ? stored.filter(
          (item): item is PriceItem =>
            typeof item?.name === "string" &&
            typeof item?.price === "string" &&
            /^\d+(\.\d+)?$/.test(item.price) &&
            PRICE_CURRENCIES.includes(item?.currency),
        )
      : [];
  } catch {
    return [];
  }
}

/**
 * "Lista de precios": a shop's items priced in dollars or euros, each shown in bolívares at the rates in force
 * today (the newest value date on or before today in Caracas), with that date. Typed one by one or pasted as
 * lines; kept in this browser; printed without the page around it, to hang up; copied or shared as text.
 * The rates come read by the server with the page (SWR's fallback); `ratesMissing` names the currencies it
 * found none for, which the list says at once rather than waiting for its own answer.
 */
export function PriceList({ ratesMissing = [] }: { ratesMissing?: readonly PriceCurrency[] }) {
  const t = useTranslations("priceList");
  const format = useFormat();
  const language = useLocale();
  const [items, setItems] = useState<PriceItem[]>([]);
  const [shopName, setShopName] = useState("");
  const [loaded, setLoaded] = useState(false);
  useEffect(() => {
    setItems(readStoredItems());
    setShopName(window.localStorage.getItem(SHOP_NAME_KEY) ?? "");
    setLoaded(true);
  }, []);
  useEffect(() => {
    if (loaded) window.localStorage.setItem(STORAGE_KEY, JSON.stringify(items));
  }, [items, loaded]);
  useEffect(() => {
    if (loaded) window.localStorage.setItem(SHOP_NAME_KEY, shopName);
  }, [shopName, loaded]);
  const printedAt = usePrintMoment();
  // Each currency's rate in force today: that of its newest value date on or before today in Caracas (GET
  // /convert of one unit answers it with its date), the euro's even when the dollar's date has none.
  const today = todayInCaracas();
  // Once the bank has published the next rates (around 5 p.m., for the next business day), said beside today's.
  const nextRates = { USD: useNextRate("USD"), EUR: useNextRate("EUR") };
  // Nothing in force yet today, only a rate published ahead: the list prices at that next rate, and says from when
  // it is in force.
  const ahead = { USD: useNextDateWhenNoneInForce("USD"), EUR: useNextDateWhenNoneInForce("EUR") };
  const inForce = {
    USD: useConversion({ amount: "1", from: "USD", to: "VES", date: ahead.USD ?? today }),
    EUR: useConversion({ amount: "1", from: "EUR", to: "VES", date: ahead.EUR ?? today }),
  };
  const aheadDay = ahead.USD ?? ahead.EUR;
  const perUnit = (currency: PriceCurrency): string | undefined => inForce[currency].data?.rate;
  const failed = (currency: PriceCurrency) =>
    Boolean(inForce[currency].error) || (!inForce[currency].data && ratesMissing.includes(currency));
  const bolivars = (item: PriceItem) => {
    const rate = perUnit(item.currency);
    return rate === undefined ? undefined : groupDigits(roundDecimal(multiplyDecimal(item.price, rate), 2), language);
  };
  const rateLine = t(aheadDay ? "ratesAhead" : "ratesOf", {
    rates: PRICE_CURRENCIES.flatMap((currency) => {
      const answer = inForce[currency].data;
      return answer
        ? [t("rateOf", { rate: formatRateText(answer.rate, language), currency, date: format.day(answer.date) })]
        : [];
    }).join(" · "),
  });
  const published = PRICE_CURRENCIES.flatMap((currency) => {
    const next = nextRates[currency].data;
    const today = inForce[currency].data;
    return next && today && next.date > today.date ? [{ currency, next }] : [];
  });
  const nextLine = aheadDay
    ? t("ahead", { day: format.weekday(aheadDay) })
    : published.length === 0
      ? undefined
      : t("nextRates", {
          rates: published
            .map(({ currency, next }) =>
              t("nextRateOf", { rate: formatRateText(String(next.dollar), language), currency }),
            )
            .join(" · "),
          day: format.weekday(published[0].next.date),
        });
  const shop = shopName.trim();
  const asText = [
    ...(shop ? [shop] : []),
    `${t("title")} · ${rateLine}`,
    ...(nextLine ? [nextLine] : []),
    ...items.map((item) =>
      t("itemText", {
        name: item.name,
        price: `${priceText(item.price, language)} ${item.currency}`,
        bolivars: withCurrency(bolivars(item) ?? "?", "VES"),
      }),
    ),
  ].join("\n");

  let rateState: React.ReactNode;
  if (PRICE_CURRENCIES.every(failed)) {
    rateState = <Alert tone="error">{t("noRates")}</Alert>;
  } else if (PRICE_CURRENCIES.some((currency) => !inForce[currency].data && !failed(currency))) {
    rateState = <PanelLoading label={t("loadingRates")} className="h-16" />;
  } else {
    rateState = (
      <div className="text-sm text-slate-700 dark:text-slate-300">
        <p data-testid="price-list-rates">{symbolsKeptWithNumbers(rateLine)}</p>
        {nextLine && (
          <p className="mt-1 text-slate-600 dark:text-slate-400" data-testid="price-list-next-rates">
            {symbolsKeptWithNumbers(nextLine)}
          </p>
        )}
      </div>
    );
  }

  return (
    <Panel title={t("title")} className="print:border-0 print:shadow-none">
      <div className="flex flex-col gap-5">
        {/* On paper the shop's name heads the list and the print date follows the rates' value dates. */}
        {shop && (
          <p className="hidden text-2xl font-bold print:block" data-testid="price-list-shop">
            {shop}
          </p>
        )}
        {rateState}
        {printedAt && (
          <p className="hidden text-sm print:block" data-testid="price-list-printed">
            {t("printedOn", { moment: format.dateTime(printedAt, false) })}
          </p>
        )}
        {items.length === 0 ? (
          loaded ? (
            <p className="text-sm text-slate-600 dark:text-slate-400">{t("empty")}</p>
          ) : (
            // The list is in this browser's storage, which only a script reads.
            <>
              <p className="text-sm text-slate-600 noscript:hidden dark:text-slate-400">{t("loadingList")}</p>
              <p className="hidden text-sm text-slate-600 noscript:block dark:text-slate-400">{t("listNeedsScript")}</p>
            </>
          )
        ) : (
          <table className="w-full text-left tabular-nums print:text-lg" data-testid="price-list-table">
            <thead className="text-xs text-slate-600 uppercase dark:text-slate-400">
              <tr>
                <th className="py-2 pr-2 font-medium">{t("item")}</th>
                <th className="py-2 pr-2 text-right font-medium">{t("price")}</th>
                <th className="py-2 text-right font-medium">{t("inBolivars")}</th>
                <th className="print:hidden">
                  <span className="sr-only">{t("actions")}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {items.map((item, index) => (
                <tr
                  // biome-ignore lint/suspicious/noArrayIndexKey: two items may share a name; the list has no ids.
                  key={index}
                  className="border-t border-slate-200 dark:border-slate-800"
                >
                  <td className="py-2 pr-2 break-words">{item.name}</td>
                  <td className="py-2 pr-2 text-right sm:whitespace-nowrap">
                    {priceText(item.price, language)} {item.currency}
                  </td>
                  <td className="py-2 text-right font-semibold whitespace-nowrap">
                    {bolivars(item) === undefined ? "–" : withCurrency(bolivars(item) as string, "VES")}
                  </td>
                  <td className="py-1 pl-1 text-right print:hidden">
                    <Button
                      size="sm"
                      variant="ghost"
                      aria-label={t("remove", { name: item.name })}
                      onClick={() => setItems(items.filter((_, at) => at !== index))}
                    >
                      ✕
                    </Button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {/* Adding, printing and copying are scripts: where none run, the sentence above says so instead. */}
        <div className="flex flex-col gap-5 noscript:hidden print:hidden">
          {/* What is done with the list, beside it; the forms that make it come after. */}
          {items.length > 0 && (
            <div className="flex flex-wrap items-center gap-2" data-testid="price-list-actions">
              <Button size="sm" onClick={() => window.print()}>
                {t("print")}
              </Button>
              <CopyButton text={asText} label={t("copy")} />
              <ShareButton text={asText} label={t("share")} />
            </div>
          )}
          <Field label={t("shopName")} hint={t("shopNameHint")}>
            {(props) => (
              <input
                {...props}
                className={inputClass}
                value={shopName}
                maxLength={80}
                autoComplete="organization"
                onChange={(event) => setShopName(event.target.value)}
              />
            )}
          </Field>
          <AddItemForm onAdd={(item) => setItems([...items, item])} />
          <PasteItems onAdd={(added) => setItems([...items, ...added])} />
        </div>
      </div>
    </Panel>
  );
}

/**
 * When the page is printed: set as the browser prepares the printout (the Print button, or the browser's own
 * menu), before it lays the page out, so the paper says the moment it was printed.
 */
function usePrintMoment(): Date | undefined {
  const [moment, setMoment] = useState<Date>();
  useEffect(() => {
    const stamp = () => flushSync(() => setMoment(new Date()));
    window.addEventListener("beforeprint", stamp);
    return () => window.removeEventListener("beforeprint", stamp);
  }, []);
  return moment;
}

function AddItemForm({ onAdd }: { onAdd: (item: PriceItem) => void }) {
  const t = useTranslations("priceList");
  const language = useLocale();
  const [name, setName] = useState("");
  const [price, setPrice] = useState("");
  const [currency, setCurrency] = useState<PriceCurrency>("USD");
  const [problem, setProblem] = useState<"name" | "price" | "negative">();
  const read = parseAmount(price, language);
  return (
    <form
      className="grid grid-cols-1 gap-3 sm:grid-cols-[minmax(0,2fr)_minmax(0,1fr)_auto_auto] sm:items-start"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        const parsed = parseAmount(price, language);
        if (name.trim() === "") return setProblem("name");
        if (parsed?.value.startsWith("-")) return setProblem("negative");
        if (!parsed || !/[1-9]/.test(parsed.value)) return setProblem("price");
        onAdd({ name: name.trim(), price: parsed.value, currency });
        setName("");
        setPrice("");
        setProblem(undefined);
      }}
    >
      <Field label={t("item")} error={problem === "name" ? t("nameMissing") : undefined}>
        {(control) => (
          <input {...control} className={inputClass} value={name} onChange={(event) => setName(event.target.value)} />
        )}
      </Field>
      <Field
        label={t("price")}
        error={
          problem === "price"
            ? t("priceUnreadable", { example: t("priceExample") })
            : problem === "negative"
              ? t("priceNegative")
              : undefined
        }
      >
        {(control) => (
          <>
            <input
              {...control}
              className={inputClass}
              inputMode="decimal"
              autoComplete="off"
              value={price}
              onChange={(event) => setPrice(event.target.value)}
            />
            {/* Said as it is typed, before the item is added: "1.250" is 1250 in Spanish and 1.25 in English. */}
            <div aria-live="polite">
              {read && <AmountReadingNote text={price.trim()} parsed={read} language={language} className="" />}
            </div>
          </>
        )}
      </Field>
      <Field label={t("currency")}>
        {(control) => (
          <select
            {...control}
            className={inputClass}
            value={currency}
            onChange={(event) => setCurrency(event.target.value as PriceCurrency)}
          >
            {PRICE_CURRENCIES.map((code) => (
              <option key={code} value={code}>
                {code}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Button type="submit" variant="primary" className="sm:mt-6">
        {t("add")}
      </Button>
    </form>
  );
}

function PasteItems({ onAdd }: { onAdd: (items: PriceItem[]) => void }) {
  const t = useTranslations("priceList");
  const language = useLocale();
  const id = useId();
  const [text, setText] = useState("");
  const [unreadable, setUnreadable] = useState<string[]>([]);
  const [readings, setReadings] = useState<PriceReading[]>([]);
  return (
    <details>
      <summary className="cursor-pointer text-sm font-medium text-indigo-700 hover:underline dark:text-indigo-300">
        {t("paste")}
      </summary>
      <div className="mt-3 flex flex-col gap-2">
        <label htmlFor={id} className="text-sm text-slate-700 dark:text-slate-300">
          {t("pasteHint")}
        </label>
        <textarea
          id={id}
          rows={5}
          className={`${inputClass} h-auto py-2`}
          value={text}
          onChange={(event) => setText(event.target.value)}
        />
        <div>
          <Button
            size="sm"
            onClick={() => {
              const read = parsePastedPrices(text, language);
              onAdd(read.items);
              setUnreadable(read.unreadable);
              setReadings(read.readings);
              setText(read.unreadable.join("\n"));
            }}
          >
            {t("addLines")}
          </Button>
        </div>
        {readings.length > 0 && (
          <div data-testid="pasted-readings">
            {readings.map((reading, index) => (
              <AmountReadingNote
                // biome-ignore lint/suspicious/noArrayIndexKey: two lines may name the same item; they have no ids.
                key={index}
                item={reading.item}
                text={reading.text}
                parsed={reading.parsed}
                language={language}
              />
            ))}
          </div>
        )}
        {unreadable.length > 0 && (
          <Alert tone="error">{t("unreadableLines", { count: unreadable.length, example: t("pasteExample") })}</Alert>
        )}
      </div>
    </details>
  );
}

function ShareButton({ text, label }: { text: string; label: string }) {
  const [canShare, setCanShare] = useState(false);
  useEffect(() => setCanShare(typeof navigator.share === "function"), []);
  if (!canShare) return null;
  return (
    <Button size="sm" onClick={() => void navigator.share({ text }).catch(() => {})}>
      {label}
    </Button>
  );
}
