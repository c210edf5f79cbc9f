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
 * How much earlier `earlier` is than `later`, in words, when the two are further apart than a gap:
 * "3 weeks earlier", "13 months earlier", "2 years earlier"; undefined for neighbouring dates.
 */
export function distanceEarlier(earlier: string, later: string): string | undefined {
  if (!isGap(earlier, later)) return undefined;
  const days = daysFrom(earlier, later);
  if (days < 60) return `${Math.round(days / 7)} weeks earlier`;
  const [y1, m1, d1] = earlier.split("-").map(Number);
  const [y2, m2, d2] = later.split("-").map(Number);
  const months = (y2 - y1) * 12 + (m2 - m1) - (d2 < d1 ? 1 : 0);
  if (months < 24) return `${months} months earlier`;
  return `${Math.floor(months / 12)} years earlier`;
}
