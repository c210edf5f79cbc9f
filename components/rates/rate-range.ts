import type { DateRange } from "@/lib/swr/rate-keys";

export type RangePreset = "30d" | "90d" | "1y" | "all";

/** The longest range GET /rates/history serves per request (lib/rates/schemas.ts MAX_HISTORY_SPAN_DAYS). */
export const MAX_SPAN_DAYS = 3660;

/** The presets' names are in the messages (range.presets, and range.short for a phone's five buttons). */
export const RANGE_PRESETS: { id: RangePreset; days: number }[] = [
  { id: "30d", days: 30 },
  { id: "90d", days: 90 },
  { id: "1y", days: 365 },
  // Asks for the longest range the API serves; the chart then starts at the first stored date in it.
  { id: "all", days: MAX_SPAN_DAYS },
];

export const DEFAULT_PRESET: RangePreset = "30d";

/**
 * What the history shows, as kept in the query string: `?range=90d` for a preset, `?from=…&to=…` for a custom
 * range (kept as typed, so a shared link with a mistake shows the same mistake, named), nothing for the default.
 */
export type RangeSelection = { preset: RangePreset } | { preset: "custom"; start: string; end: string };

export function selectionFromQuery(params: { get(name: string): string | null }): RangeSelection {
  const from = params.get("from");
  const to = params.get("to");
  if (from !== null || to !== null) return { preset: "custom", start: from ?? "", end: to ?? "" };
  const range = params.get("range");
  const preset = RANGE_PRESETS.find((p) => p.id === range);
  return { preset: preset ? preset.id : DEFAULT_PRESET };
}

/** The query-string keys of a selection; null removes a key, so the default leaves a clean URL. */
export function selectionToQuery(selection: RangeSelection): Record<"range" | "from" | "to", string | null> {
  if (selection.preset === "custom") return { range: null, from: selection.start, to: selection.end };
  return { range: selection.preset === DEFAULT_PRESET ? null : selection.preset, from: null, to: null };
}

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

/** Whole days from `start` to `end` (negative when `end` is earlier). */
export function daysFrom(start: string, end: string): number {
  return Math.round((Date.parse(`${end}T00:00:00Z`) - Date.parse(`${start}T00:00:00Z`)) / 86_400_000);
}

export function presetRange(preset: RangePreset, today = todayInCaracas()): DateRange {
  const days = RANGE_PRESETS.find((p) => p.id === preset)!.days;
  return { start_date: shiftDays(today, -days), end_date: today };
}

/** What is wrong with one field of a custom range, for the messages (range.<kind>) to word. */
export type RangeProblem = { field: "from" | "to" } & (
  | { kind: "missing" }
  | { kind: "notDate"; value: string }
  | { kind: "future"; date: string; today: string }
  | { kind: "after"; start: string; end: string }
  | { kind: "tooLong"; days: number; max: number }
);

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
const isCalendarDate = (value: string) =>
  ISO_DATE.test(value) && new Date(`${value}T00:00:00Z`).toISOString().slice(0, 10) === value;

/**
 * What is wrong with a custom range, field by field, before the API is asked: the same rules it applies
 * (start not after end, at most MAX_SPAN_DAYS) and one it cannot know is a mistake (a day that has not come).
 */
export function checkCustomRange(start: string, end: string, today = todayInCaracas()): RangeProblem[] {
  const problems: RangeProblem[] = [];
  for (const [field, value] of [
    ["from", start],
    ["to", end],
  ] as const) {
    if (!value) problems.push({ field, kind: "missing" });
    else if (!isCalendarDate(value)) problems.push({ field, kind: "notDate", value });
    else if (value > today) problems.push({ field, kind: "future", date: value, today });
  }
  if (problems.length > 0) return problems;
  if (start > end) {
    problems.push({ field: "from", kind: "after", start, end });
  } else if (daysFrom(start, end) > MAX_SPAN_DAYS) {
    problems.push({ field: "from", kind: "tooLong", days: daysFrom(start, end), max: MAX_SPAN_DAYS });
  }
  return problems;
}

/** The range a selection asks GET /rates/history for; null for a custom range with a problem (nothing is asked). */
export function rangeOfSelection(selection: RangeSelection, today = todayInCaracas()): DateRange | null {
  if (selection.preset !== "custom") return presetRange(selection.preset, today);
  return checkCustomRange(selection.start, selection.end, today).length === 0
    ? { start_date: selection.start, end_date: selection.end }
    : null;
}

/** `?currency=eur` and `?currency=EUR` alike; anything that is not a three-letter code is the dollar. */
export function currencyFromQuery(params: { get(name: string): string | null }): string {
  const code = params.get("currency")?.trim().toUpperCase() ?? "";
  return /^[A-Z]{3}$/.test(code) ? code : "USD";
}
