import { formatChange, formatDay, formatRate } from "@/components/ui/format";
import type { Rate } from "@/lib/swr/types";
import { useSelectedCurrency } from "./selected-currency";

/** The rates of the range, newest first, each with its change from the row below (the previous stored rate). */
export function RateTable({ rates }: { rates: Rate[] }) {
  const currency = useSelectedCurrency();
  return (
    <div className="h-56 overflow-y-auto 2xl:h-72 rounded-lg border border-slate-200 dark:border-slate-800" tabIndex={0} aria-label="Rates table, scrollable">
      <table className="w-full text-sm">
        <caption className="sr-only">Rates of the selected range, newest first</caption>
        <thead className="sticky top-0 bg-slate-100 text-left text-xs tracking-wide text-slate-700 uppercase dark:bg-slate-800 dark:text-slate-300">
          <tr>
            <th scope="col" className="px-3 py-2 font-semibold">Date</th>
            <th scope="col" className="px-3 py-2 text-right font-semibold">Bs per {currency.code}</th>
            <th scope="col" className="px-3 py-2 text-right font-semibold">Change</th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100 dark:divide-slate-800">
          {rates.map((rate, index) => {
            const previous = rates[index + 1];
            const change = previous ? rate.dollar - previous.dollar : undefined;
            return (
              <tr key={rate.date} className="hover:bg-slate-50 dark:hover:bg-slate-800/40">
                <td className="px-3 py-1.5 whitespace-nowrap">
                  <time dateTime={rate.date}>{formatDay(rate.date)}</time>
                </td>
                <td className="px-3 py-1.5 text-right tabular-nums">{formatRate(rate.dollar)}</td>
                <td className="px-3 py-1.5 text-right text-slate-600 tabular-nums dark:text-slate-400">
                  {change === undefined ? "—" : formatChange(change)}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

/** The rates as CSV (date,dollar; date,EUR for another currency), newest first like the table; every decimal kept. */
export function ratesToCsv(rates: Rate[], column = "dollar"): string {
  return [`date,${column}`, ...rates.map((rate) => `${rate.date},${rate.dollar}`)].join("\n") + "\n";
}
