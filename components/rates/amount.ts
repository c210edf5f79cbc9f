/**
 * Amounts as people in Venezuela and elsewhere write them, and money rounded as people read it. Pure text
 * arithmetic on decimal strings: no binary float between the API's digits and what is shown.
 */

/**
 * "1.234,56", "1234,56", "1,234.56", "1234.56", "1 234,56" -> "1234.56"; undefined for what is not an amount.
 * With both separators the last one is the decimal point; a lone comma is a decimal comma (Venezuelan
 * writing); a lone dot is a decimal point unless it repeats ("1.234.567"), so an ambiguous "1.234" reads
 * as the API reads it, one point two three four (the result repeats the amount as read). A sign is kept for
 * the API to refuse a negative amount in its own words.
 */
export function parseAmount(input: string): string | undefined {
  let text = input.trim().replace(/[\s\u00a0\u202f']/g, "");
  if (text === "") return undefined;
  let sign = "";
  if (/^[-+]/.test(text)) {
    sign = text[0] === "-" ? "-" : "";
    text = text.slice(1);
  }
  if (!/^[\d.,]+$/.test(text) || !/\d/.test(text)) return undefined;
  const lastDot = text.lastIndexOf(".");
  const lastComma = text.lastIndexOf(",");
  let integer: string;
  let fraction = "";
  if (lastDot >= 0 && lastComma >= 0) {
    const decimal = Math.max(lastDot, lastComma);
    const group = decimal === lastDot ? "," : ".";
    integer = text.slice(0, decimal);
    fraction = text.slice(decimal + 1);
    if (!groupedCorrectly(integer, group) || /[.,]/.test(fraction)) return undefined;
    integer = integer.split(group).join("");
  } else {
    const separator = lastDot >= 0 ? "." : lastComma >= 0 ? "," : undefined;
    const parts = separator ? text.split(separator) : [text];
    if (parts.length > 2) {
      // "1.234.567" or "1,234,567": only grouping.
      if (!groupedCorrectly(text, separator!)) return undefined;
      integer = parts.join("");
    } else {
      integer = parts[0];
      fraction = parts[1] ?? "";
    }
  }
  if (integer === "" && fraction === "") return undefined;
  const whole = integer.replace(/^0+(?=\d)/, "") || "0";
  const decimals = fraction.replace(/0+$/, "");
  return `${sign}${whole}${decimals ? `.${decimals}` : ""}`;
}

function groupedCorrectly(integer: string, group: string): boolean {
  if (!integer.includes(group)) return /^\d*$/.test(integer);
  const [head, ...rest] = integer.split(group);
  return /^\d{1,3}$/.test(head) && rest.every((part) => /^\d{3}$/.test(part));
}

/** A non-negative decimal string rounded half-up to `digits` decimals, with exactly that many. */
export function roundDecimal(decimal: string, digits: number): string {
  const negative = decimal.startsWith("-");
  const [integer, fraction = ""] = decimal.replace(/^[-+]/, "").split(".");
  const padded = (fraction + "0".repeat(digits + 1)).slice(0, digits + 1);
  let kept = integer + padded.slice(0, digits);
  if (Number(padded[digits]) >= 5) {
    // Add one unit in the last kept place, carrying through the digits.
    const chars = kept.split("");
    let i = chars.length - 1;
    for (; i >= 0; i -= 1) {
      if (chars[i] === "9") chars[i] = "0";
      else {
        chars[i] = String(Number(chars[i]) + 1);
        break;
      }
    }
    kept = (i < 0 ? "1" : "") + chars.join("");
  }
  const whole = kept.slice(0, kept.length - digits).replace(/^0+(?=\d)/, "") || "0";
  const rounded = digits > 0 ? `${whole}.${kept.slice(kept.length - digits)}` : whole;
  return negative && /[1-9]/.test(rounded) ? `-${rounded}` : rounded;
}

/** Decimal text with grouped thousands ("19724.56" -> "19,724.56"), every given decimal kept. */
export function groupDigits(decimal: string): string {
  const [integer, fraction] = decimal.split(".");
  const grouped = integer.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return fraction === undefined ? grouped : `${grouped}.${fraction}`;
}

/** Decimals of a currency's minor unit (2 for VES and USD, 0 for JPY), as Intl knows them; 2 otherwise. */
export function minorUnitDigits(code: string): number {
  try {
    return (
      new Intl.NumberFormat("en-US", { style: "currency", currency: code }).resolvedOptions().maximumFractionDigits ?? 2
    );
  } catch {
    return 2;
  }
}

/**
 * THE precision rule for rates, everywhere on the dashboard: a rate keeps the decimals the central bank
 * publishes, at most 8 (a computed cross rate or inverse is rounded to 8), trailing zeros dropped but never
 * fewer than 2. Columns pad to their longest value so the points line up. Amounts of money are rounded to
 * the currency's minor unit.
 */
export const RATE_DECIMALS = 8;

/** A rate as decimal text, by the rule above: "197.24560000" -> "197.2456", "0.005069812..." -> "0.00506981". */
export function formatRateText(decimal: string): string {
  const rounded = roundDecimal(decimal, RATE_DECIMALS).replace(/0+$/, "");
  const [integer, fraction = ""] = rounded.split(".");
  return groupDigits(`${integer}.${fraction.padEnd(2, "0")}`);
}
