import { useTranslations } from "next-intl";
import { useCallback } from "react";
import { daysFrom } from "./rate-range";

/**
 * Gaps in the stored history. The bank publishes on working days: a weekend with a holiday or two leaves a
 * few days without a rate, which is no gap. More than GAP_DAYS between two stored dates means rates are
 * missing (a quarter never imported, a year the service was not running): the chart breaks its line there
 * instead of drawing a trend across, and a change across it says how far apart its two dates are.
 */
export const GAP_DAYS = 14;

export const isGap = (earlier: string, later: string) => daysFrom(earlier, later) > GAP_DAYS;

/**
 * How much earlier `earlier` is than `later`, when the two are further apart than a gap, as a unit and a
 * count for the messages to word ("3 weeks earlier", "13 meses antes", "2 years earlier"); undefined for
 * neighbouring dates.
 */
export function earlierParts(
  earlier: string,
  later: string,
): { unit: "week" | "month" | "year"; count: number } | undefined {
  if (!isGap(earlier, later)) return undefined;
  const days = daysFrom(earlier, later);
  if (days < 60) return { unit: "week", count: Math.round(days / 7) };
  const [y1, m1, d1] = earlier.split("-").map(Number);
  const [y2, m2, d2] = later.split("-").map(Number);
  const months = (y2 - y1) * 12 + (m2 - m1) - (d2 < d1 ? 1 : 0);
  if (months < 24) return { unit: "month", count: months };
  return { unit: "year", count: Math.floor(months / 12) };
}

/** earlierParts in words, in the page's language. */
export function useDistanceEarlier(): (earlier: string, later: string) => string | undefined {
  const t = useTranslations("format");
  return useCallback(
    (earlier: string, later: string) => {
      const parts = earlierParts(earlier, later);
      return parts && t("earlier", parts);
    },
    [t],
  );
}
