/**
 * Calendar dates as "YYYY-MM-DD" text, the form rates are stored and served in.
 *
 * Arithmetic runs on UTC midnights: UTC has no daylight-saving shifts, so adding a day is always exactly
 * 86 400 000 ms and a date never slips to the day before or after. Time zones matter only for "today".
 */
const MS_PER_DAY = 86_400_000;

/** The earliest and latest dates that have a four-digit year, the only ones this module formats. */
export const EARLIEST_DATE = "0000-01-01";
export const LATEST_DATE = "9999-12-31";

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Today's calendar date in an IANA time zone (e.g. America/Caracas), as YYYY-MM-DD. */
export function todayIn(timeZone: string, now: Date = new Date()): string {
  // en-CA formats as YYYY-MM-DD; formatToParts keeps us independent of that locale detail anyway.
  const parts = new Intl.DateTimeFormat("en-CA", {
    timeZone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
  }).formatToParts(now);
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)!.value;
  return `${part("year").padStart(4, "0")}-${part("month")}-${part("day")}`;
}

/** The date `days` days after `date` (before, when negative). Throws RangeError outside years 0000-9999. */
export function addDays(date: string, days: number): string {
  return formatUtcMidnight(toUtcMidnight(date) + days * MS_PER_DAY);
}

/** Whole days from `start` to `end`: 0 for the same date, negative when `end` is earlier. */
export function daysBetween(start: string, end: string): number {
  return Math.round((toUtcMidnight(end) - toUtcMidnight(start)) / MS_PER_DAY);
}

/** Like addDays, but stops at EARLIEST_DATE or LATEST_DATE instead of leaving the four-digit years. */
export function addDaysClamped(date: string, days: number): string {
  const target = toUtcMidnight(date) + days * MS_PER_DAY;
  const clamped = Math.min(Math.max(target, toUtcMidnight(EARLIEST_DATE)), toUtcMidnight(LATEST_DATE));
  return formatUtcMidnight(clamped);
}

function toUtcMidnight(date: string): number {
  const match = ISO_DATE.exec(date);
  if (!match) throw new RangeError(`Not a YYYY-MM-DD date: "${date}"`);
  const moment = new Date(0);
  // setUTCFullYear, unlike Date.UTC, does not map years 0-99 to 1900-1999.
  moment.setUTCFullYear(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  if (formatUtcMidnight(moment.getTime()) !== date) throw new RangeError(`Not a calendar date: "${date}"`);
  return moment.getTime();
}

function formatUtcMidnight(epochMs: number): string {
  const moment = new Date(epochMs);
  const year = moment.getUTCFullYear();
  if (year < 0 || year > 9999) throw new RangeError(`Date out of the range ${EARLIEST_DATE}..${LATEST_DATE}`);
  const month = String(moment.getUTCMonth() + 1).padStart(2, "0");
  const day = String(moment.getUTCDate()).padStart(2, "0");
  return `${String(year).padStart(4, "0")}-${month}-${day}`;
}
