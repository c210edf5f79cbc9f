"use client";

import { useTranslations } from "next-intl";
import { RATE_DISPLAY_DECIMALS } from "@/components/ui/format";
import { useFormat } from "@/components/ui/use-format";
import type { Rate } from "@/lib/swr/types";
import { useDistanceEarlier } from "./gaps";
import { useSelectedCurrency } from "./selected-currency";

/**
 * The rates of the range, newest first, each with its change from the previous stored rate: the one the API
 * names (include=change), which for the oldest row lies before the range; the row below when a rate has none.
 * Every value of a column has the same number of decimals, in tabular figures, right-aligned: the decimal
 * points line up.
 */
export function RateTable({ rates }: { rates: Rate[] }) {
  const t = useTranslations("table");
  const format = useFormat();
  const distanceEarlier = useDistanceEarlier();
  const currency = useSelectedCurrency();
  // Every rate with the same decimals (the rule for people), so the column lines up on the decimal mark.
  const digits = RATE_DISPLAY_DECIMALS;
  return (
    <section
      className="h-56 overflow-auto rounded-lg border border-slate-200 2xl:h-72 dark:border-slate-800"
      // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard.
      tabIndex={0}
      aria-label={t("label")}
    >
      <table className="w-full text-sm">
        <caption className="sr-only">{t("caption")}</caption>
        <thead className="sticky top-0 bg-slate-100 text-left text-xs tracking-wide text-slate-700 uppercase dark:bg-slate-800 dark:text-slate-300">
          <tr>
            <th scope="col" className="px-2 py-2 font-semibold sm:px-3">
              {t("date")}
            </th>
            <th scope="col" className="px-2 py-2 text-right font-semibold sm:px-3">
              {t("perCurrency", { currency: currency.code })}
            </th>
            <th scope="col" className="hidden px-2 py-2 text-right font-semibold sm:table-cell sm:px-3">
              {t("change")}
            </th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100 font-mono text-[0.8125rem] dark:divide-slate-800">
          {rates.map((rate, index) => {
            // null: the first rate ever stored, nothing before it.
            const previous = rate.previous === undefined ? rates[index + 1] : (rate.previous ?? undefined);
            const change = previous ? rate.dollar - previous.dollar : undefined;
            // A change across missing months is not a day's change: it says how far back it reaches.
            const across = previous ? distanceEarlier(previous.date, rate.date) : undefined;
            return (
              <tr key={rate.date} className="hover:bg-slate-50 dark:hover:bg-slate-800/40">
                <td className="px-2 py-1.5 font-sans text-sm whitespace-nowrap sm:px-3">
                  <time dateTime={rate.date}>{format.day(rate.date)}</time>
                </td>
                <td className="px-2 py-1.5 text-right whitespace-nowrap tabular-nums sm:px-3">
                  <span className="block" data-testid="rate-value">
                    {format.fixed(rate.dollar, digits)}
                  </span>
                  {/* A phone has no room for a third column: the change goes under the value. */}
                  <span className="block text-xs text-slate-600 sm:hidden dark:text-slate-400">
                    {change === undefined ? "" : format.fixed(change, digits, true)}
                    {across && <span className="block font-sans">{t("versus", { across })}</span>}
                  </span>
                </td>
                <td className="hidden px-2 py-1.5 text-right whitespace-nowrap text-slate-600 tabular-nums sm:table-cell sm:px-3 dark:text-slate-400">
                  {change === undefined ? "—" : format.fixed(change, digits, true)}
                  {across && (
                    <span className="block font-sans text-xs" data-testid="change-across-gap">
                      {t("versusDate", { date: format.day(previous!.date), across })}
                    </span>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}
