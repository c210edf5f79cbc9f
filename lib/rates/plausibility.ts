import Decimal from "decimal.js";
import { addDays } from "./dates";

/**
 * What the service accepts from the central bank, whatever the page or a workbook says: the bank is outside
 * this service, and a value it never meant (a 400-digit number, a value date of 9999-12-31) must not become
 * the rate everyone is served.
 */

/** Digits before and after the decimal point of a rate in bolivares per unit (the bank publishes 8 after). */
export const MAX_INTEGER_DIGITS = 12;
export const MAX_FRACTION_DIGITS = 12;

const PLAUSIBLE_DECIMAL = new RegExp(`^(\\d{1,${MAX_INTEGER_DIGITS}})(?:\\.(\\d{1,${MAX_FRACTION_DIGITS}}))?$`);

/** Why a decimal text is not a plausible rate, or undefined when it is one ("236.45870000"). */
export function implausibleRateReason(text: string): string | undefined {
  const match = PLAUSIBLE_DECIMAL.exec(text);
  if (!match) {
    const [integer = "", fraction = ""] = text.split(".");
    if (/^\d+(\.\d+)?$/.test(text)) {
      return (
        `has ${integer.length} digits before the decimal point and ${fraction.length} after; a rate has at most ` +
        `${MAX_INTEGER_DIGITS} and ${MAX_FRACTION_DIGITS}`
      );
    }
    return "is not a decimal number";
  }
  if (!/[1-9]/.test(text)) return "is zero";
  return undefined;
}

/**
 * The decimal text of a number read from a workbook cell: the shortest decimal that is the same double, which
 * is what the bank typed (its figures have far fewer than 15 significant digits). Never in exponent notation.
 */
export function decimalTextOfNumber(value: number): string | undefined {
  if (!Number.isFinite(value) || value <= 0) return undefined;
  return new Decimal(value).toFixed();
}

/**
 * How far a value date may be from today in RATES_TIMEZONE. Ahead: the bank publishes on the operation day
 * for the next business day; the workbooks show value dates up to five days after the operation (carnival,
 * Holy Week), so a week covers every holiday run. Behind (home page only): the page keeps showing its last
 * value date over a holiday run, two weeks at the turn of the year.
 */
export const MAX_DAYS_AHEAD = 7;
export const MAX_DAYS_BEHIND = 14;

/**
 * The bolívar digital (VES, one per million of the bolívar soberano) started on 2021-10-01: earlier figures
 * are in another unit and would make the history jump by a factor of a million. Workbooks reach back to it.
 */
export const EARLIEST_VALUE_DATE = "2021-10-01";

/** Why a value date read from the home page is not plausible today, or undefined when it is. */
export function implausibleHomePageDate(date: string, today: string): string | undefined {
  const latest = addDays(today, MAX_DAYS_AHEAD);
  const earliest = addDays(today, -MAX_DAYS_BEHIND);
  if (date > latest) return `is more than ${MAX_DAYS_AHEAD} days after today (${today})`;
  if (date < earliest) return `is more than ${MAX_DAYS_BEHIND} days before today (${today})`;
  return undefined;
}

/** Why a value date read from a workbook is not plausible today, or undefined when it is. */
export function implausibleWorkbookDate(date: string, today: string): string | undefined {
  if (date > addDays(today, MAX_DAYS_AHEAD)) return `is more than ${MAX_DAYS_AHEAD} days after today (${today})`;
  if (date < EARLIEST_VALUE_DATE) {
    return `is before ${EARLIEST_VALUE_DATE}, when the bolívar digital replaced the bolívar soberano (another unit)`;
  }
  return undefined;
}
