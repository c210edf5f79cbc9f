/**
 * The rate chart's time axis: positions are UTC milliseconds of the calendar dates, so a four-day gap
 * (a weekend and a holiday) is drawn four times as wide as a one-day gap. Ticks fall on whole days or
 * month starts and are written without ambiguity: "Nov 23" on an axis shorter than a year, "Nov 2026" on
 * longer ones, never a two-digit year.
 */

import type { Locale } from "@/i18n/locale";

const DAY_MS = 86_400_000;

/** A YYYY-MM-DD date as the axis position: midnight UTC of that day. */
export const dayToMs = (date: string) => Date.parse(`${date}T00:00:00Z`);

/** Spans up to this many days label days; longer ones label months with their year. */
const DAY_LABEL_MAX_SPAN = 300;

export type TickStyle = "day" | "month";

export function tickStyleFor(startMs: number, endMs: number): TickStyle {
  return (endMs - startMs) / DAY_MS <= DAY_LABEL_MAX_SPAN ? "day" : "month";
}

export function formatTick(ms: number, style: TickStyle, locale: Locale): string {
  return new Date(ms)
    .toLocaleDateString(locale === "es" ? "es" : "en-US", {
      timeZone: "UTC",
      month: "short",
      ...(style === "day" ? { day: "numeric" } : { year: "numeric" }),
    })
    .replace(/\.(?= |$)/, "");
}

/**
 * About `target` ticks between start and end (both included in the domain): every 1, 2, 7 or 14 days, or on
 * the first of every 1, 2, 3, 6, 12, 24 or 60 months, whichever is the finest step giving at most `target`.
 */
export function timeTicks(startMs: number, endMs: number, target = 7): number[] {
  if (!(endMs > startMs)) return [startMs];
  const spanDays = (endMs - startMs) / DAY_MS;
  for (const step of [1, 2, 7, 14]) {
    if (spanDays / step > target) continue;
    const ticks: number[] = [];
    for (let t = startMs; t <= endMs; t += step * DAY_MS) ticks.push(t);
    return ticks;
  }
  for (const months of [1, 2, 3, 6, 12, 24, 60]) {
    if (spanDays / (months * 30.4) > target) continue;
    const ticks: number[] = [];
    const first = new Date(startMs);
    // The first month start on or after the domain's start, aligned to the step (January for years).
    let year = first.getUTCFullYear();
    let month = first.getUTCMonth() + (first.getUTCDate() === 1 ? 0 : 1);
    while (month % months !== 0 || month >= 12) {
      if (month >= 12) {
        year += 1;
        month -= 12;
        continue;
      }
      month += 1;
    }
    for (let t = Date.UTC(year, month, 1); t <= endMs; t = Date.UTC(year, (month += months), 1)) ticks.push(t);
    return ticks;
  }
  return [startMs, endMs];
}
