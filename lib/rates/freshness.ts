import { addDays } from "./dates";

/**
 * Whether the stored rates are as new as the central bank's habit says they should be. The bank publishes on
 * each business day, in the late afternoon in Caracas, the rate of the next business day (its value date).
 * So once RATES_STALE_AFTER (local time) has passed on a business day, the newest value date should be the
 * next business day after it; before that hour, the next business day after the previous business day.
 * Business days are Monday to Friday except RATES_HOLIDAYS: the bank's holidays move (Carnival, Holy Week)
 * and are not computed here; an operator lists the ones that matter.
 */
export interface FreshnessRules {
  timeZone: string;
  /** "HH:MM", local time in timeZone. */
  staleAfter: string;
  /** YYYY-MM-DD dates on which the bank publishes nothing although they fall on a weekday. */
  holidays: ReadonlySet<string>;
}

export interface Freshness {
  /** The value date the bank should have published by now. */
  expected_value_date: string;
  stale: boolean;
  /** Business days from the newest stored value date (excluded) to the expected one (included); null with no rate. */
  business_days_missed: number | null;
}

export function isBusinessDay(date: string, holidays: ReadonlySet<string>): boolean {
  const weekday = new Date(`${date}T00:00:00Z`).getUTCDay();
  return weekday !== 0 && weekday !== 6 && !holidays.has(date);
}

function nextBusinessDay(date: string, holidays: ReadonlySet<string>): string {
  let day = addDays(date, 1);
  while (!isBusinessDay(day, holidays)) day = addDays(day, 1);
  return day;
}

function previousBusinessDay(date: string, holidays: ReadonlySet<string>): string {
  let day = addDays(date, -1);
  while (!isBusinessDay(day, holidays)) day = addDays(day, -1);
  return day;
}

/** The calendar date and the minutes since local midnight of `now` in `timeZone`. */
function localClock(now: Date, timeZone: string): { date: string; minutes: number } {
  const parts = new Intl.DateTimeFormat("en-CA", {
    timeZone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
  }).formatToParts(now);
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)!.value;
  return {
    date: `${part("year")}-${part("month")}-${part("day")}`,
    minutes: Number(part("hour")) * 60 + Number(part("minute")),
  };
}

export function assessFreshness(newestValueDate: string | undefined, now: Date, rules: FreshnessRules): Freshness {
  const { date: today, minutes } = localClock(now, rules.timeZone);
  const [hours, mins] = rules.staleAfter.split(":").map(Number);
  const publishedBy =
    isBusinessDay(today, rules.holidays) && minutes >= hours * 60 + mins
      ? today
      : previousBusinessDay(today, rules.holidays);
  const expected = nextBusinessDay(publishedBy, rules.holidays);
  if (newestValueDate === undefined) return { expected_value_date: expected, stale: true, business_days_missed: null };
  let missed = 0;
  // Bounded: a history ten years old counts ~2,600 days once.
  for (let day = newestValueDate; day < expected; ) {
    day = addDays(day, 1);
    if (isBusinessDay(day, rules.holidays)) missed++;
  }
  return { expected_value_date: expected, stale: missed > 0, business_days_missed: missed };
}
