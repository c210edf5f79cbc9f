"use client";

import { useTranslations } from "next-intl";
import { RATE_DISPLAY_DECIMALS } from "@/components/ui/format";
import { useFormat } from "@/components/ui/use-format";
import type { Rate } from "@/lib/swr/types";

/** The range's lowest, highest and average rate, and its change from the first stored date to the last. */
export function RateStats({ rates }: { rates: Rate[] }) {
  const t = useTranslations("stats");
  const format = useFormat();
  if (rates.length === 0) return null;
  const values = rates.map((rate) => rate.dollar);
  const digits = RATE_DISPLAY_DECIMALS;
  // Newest first: the last entry is the oldest.
  const newest = rates[0];
  const oldest = rates[rates.length - 1];
  const lowest = rates.reduce((a, b) => (b.dollar < a.dollar ? b : a));
  const highest = rates.reduce((a, b) => (b.dollar > a.dollar ? b : a));
  const average = values.reduce((sum, value) => sum + value, 0) / values.length;
  const change = newest.dollar - oldest.dollar;
  const stats = [
    { id: "lowest" as const, value: format.fixed(lowest.dollar, digits), note: format.day(lowest.date) },
    { id: "highest" as const, value: format.fixed(highest.dollar, digits), note: format.day(highest.date) },
    { id: "average" as const, value: format.fixed(average, digits), note: t("ofRates", { count: rates.length }) },
    {
      id: "change" as const,
      value: rates.length > 1 ? format.fixed(change, digits, true) : "—",
      note:
        rates.length > 1
          ? t("since", { percent: format.percent(change / oldest.dollar), date: format.day(oldest.date) })
          : t("oneOnly"),
    },
  ];
  return (
    // Four across where a 15-character value fits each; two on a phone; one row per figure on the narrowest.
    <dl
      className="grid grid-cols-1 gap-2 min-[380px]:grid-cols-2 xl:grid-cols-4"
      aria-label={t("summary")}
      data-testid="rate-stats"
    >
      {stats.map((stat) => (
        <div
          key={stat.id}
          className="flex min-w-0 flex-wrap items-baseline justify-between gap-x-2 rounded-lg bg-slate-50 px-3 py-1.5 min-[380px]:block min-[380px]:py-2 dark:bg-slate-800/50"
        >
          <dt className="text-xs font-medium tracking-wide text-slate-600 uppercase dark:text-slate-400">
            {t(stat.id)}
          </dt>
          <dd
            className="font-mono text-sm font-semibold whitespace-nowrap tabular-nums"
            data-testid={`stat-${stat.id}`}
          >
            {stat.value}
          </dd>
          <dd className="w-full text-xs text-slate-600 dark:text-slate-400">{stat.note}</dd>
        </div>
      ))}
    </dl>
  );
}
