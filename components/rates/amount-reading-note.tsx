"use client";

import { useTranslations } from "next-intl";
import type { AmountLanguage, ParsedAmount } from "./amount";

/**
 * How an amount that could be read two ways was read: the value without grouping, in the language's own
 * decimal mark, and which mark did what ("“50.000” read as 50000: the dot groups thousands"). The converter
 * says it of its amount, the price list of each price; `item` names the price's item where there are several.
 * Nothing where the amount allows one reading only.
 */
export function AmountReadingNote({
  text,
  parsed,
  language,
  item,
  className = "mt-1",
}: {
  text: string;
  parsed: ParsedAmount;
  language: AmountLanguage;
  item?: string;
  className?: string;
}) {
  const t = useTranslations("converter");
  const reading = parsed.reading;
  if (!reading) return null;
  const shown = language === "es" ? parsed.value.replace(".", ",") : parsed.value;
  const how =
    "groupMark" in reading
      ? t("groups", { mark: reading.groupMark === "." ? "dot" : "comma" })
      : t("decimal", { mark: reading.decimalMark === "." ? "dot" : "comma" });
  return (
    <p className={`text-sm text-slate-600 dark:text-slate-400 ${className}`} data-testid="amount-reading">
      {item && <span className="font-medium text-slate-700 dark:text-slate-300">{item} · </span>}
      {t.rich("readAs", {
        text,
        value: shown,
        how,
        strong: (chunks) => <span className="font-medium tabular-nums">{chunks}</span>,
      })}
    </p>
  );
}
