import type { DateRange } from "@/lib/swr/use-rates";

export type RangePreset = "30d" | "90d" | "1y" | "all";

export const RANGE_PRESETS: { id: RangePreset; label: string; days: number }[] = [
  { id: "30d", label: "30 days", days: 30 },
  { id: "90d", label: "90 days", days: 90 },
  { id: "1y", label: "1 year", days: 365 },
  // The API refuses ranges over 3660 days, so "all" is the longest range it serves, ending today.
  { id: "all", label: "All", days: 3660 },
];

/**
 * "Today" as the rates API counts it: the central bank publishes in Caracas time (the API's default
 * RATES_TIMEZONE), so a person in another time zone still asks for the bank's current day.
 */
export function todayInCaracas(now = new Date()): string {
  // en-CA formats as YYYY-MM-DD.
  return now.toLocaleDateString("en-CA", { timeZone: "America/Caracas" });
}

/** A YYYY-MM-DD date moved by a number of days, computed in UTC so no DST change can skip a day. */
export function shiftDays(date: string, days: number): string {
  const [year, month, day] = date.split("-").map(Number);
  return new Date(Date.UTC(year, month - 1, day + days)).toISOString().slice(0, 10);
}

export function presetRange(preset: RangePreset, today = todayInCaracas()): DateRange {
  const days = RANGE_PRESETS.find((p) => p.id === preset)!.days;
  return { start_date: shiftDays(today, -days), end_date: today };
}
