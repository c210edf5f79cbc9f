/**
 * Amounts as people in Venezuela and elsewhere write them, and money rounded as people read it. Pure text
 * arithmetic on decimal strings: no binary float between the API's digits and what is shown.
 */

import { formatRate } from "@/components/ui/format";
import type { Locale } from "@/i18n/locale";

/** The languages the dashboard speaks, which also decide how an ambiguous amount is read. */
export type AmountLanguage = Locale;

/**
 * How an amount was read where the reading could surprise: which mark was taken for the decimal mark, or
 * that the one mark grouped thousands. Absent where the writing allows one reading only.
 */
export type AmountReading = { decimalMark: "." | "," } | { groupMark: "." | "," };

export interface ParsedAmount {
  /** The amount as the API reads it: a dot decimal, no grouping ("50000", "1234.56"). */
  value: string;
  /** Where it differs from `value`: the amount with the decimals as typed ("1250.50" for "1.250,50"), to echo. */
  written?: string;
  reading?: AmountReading;
}

/**
 * The currency signs and codes shops write beside a price, longest first so that "US$" is not read as "$":
 * the dollar's, the euro's and the bolívar's (Bs., Bs.S, Bs.D, VES, VEF).
 */
const CURRENCY_MARKS = [
  "Bs.S.",
  "Bs.D.",
  "Bs.S",
  "Bs.D",
  "US$",
  "U$S",
  "USD",
  "EUR",
  "VES",
  "VEF",
  "BsS",
  "BsD",
  "Bs.",
  "Bs",
  "$",
  "€",
];

/**
 * The amount as typed without a currency sign or code before or after it ("$ 3.99", "US$ 3,99", "3,99 $",
 * "USD 10", "Bs. 100", "100 Bs" -> "3.99", "3,99", "3,99", "10", "100", "100"); a sign before the mark is kept
 * ("-$5" -> "-5"). What the person typed is otherwise left as it is, to be echoed back as written.
 */
export function withoutCurrencyMarks(input: string): string {
  let rest = input.trim();
  let sign = "";
  if (/^[-+]/.test(rest)) {
    sign = rest[0];
    rest = rest.slice(1).trim();
  }
  const upper = () => rest.toUpperCase();
  const before = CURRENCY_MARKS.find((mark) => upper().startsWith(mark.toUpperCase()));
  if (before) rest = rest.slice(before.length).trim();
  const after = CURRENCY_MARKS.find((mark) => upper().endsWith(mark.toUpperCase()));
  if (after) rest = rest.slice(0, rest.length - after.length).trim();
  return sign + rest;
}

/**
 * Reads an amount as the person's language writes it, a currency sign or code beside it dropped:
 * - both marks: the last one is the decimal mark ("1.234,56" and "1,234.56" are 1234.56);
 * - one mark repeated: it groups thousands ("1.234.567", "1,234,567");
 * - one mark once with exactly three digits after it: the language decides; in Spanish the dot groups
 *   ("50.000" is 50000) and the comma is decimal ("50,000" is 50), in English the reverse;
 * - one mark once with other than three digits after it: a decimal mark ("35,50", "1.5", "0,25").
 * Spaces and apostrophes group too. A sign is kept for the API to refuse a negative amount in its own words.
 * The reading is returned where it could surprise: both marks, the three-digit case, and a lone decimal mark
 * that is not the language's own.
 */
export function parseAmount(input: string, language: AmountLanguage): ParsedAmount | undefined {
  let text = withoutCurrencyMarks(input).replace(/[\s\u00a0\u202f']/g, "");
  if (text === "") return undefined;
  let sign = "";
  if (/^[-+]/.test(text)) {
    sign = text[0] === "-" ? "-" : "";
    text = text.slice(1);
  }
  if (!/^[\d.,]+$/.test(text) || !/\d/.test(text)) return undefined;
  const ownDecimal = language === "es" ? "," : ".";
  const lastDot = text.lastIndexOf(".");
  const lastComma = text.lastIndexOf(",");
  let integer: string;
  let fraction = "";
  let reading: AmountReading | undefined;
  if (lastDot >= 0 && lastComma >= 0) {
    const decimalMark = lastDot > lastComma ? "." : ",";
    const group = decimalMark === "." ? "," : ".";
    const at = Math.max(lastDot, lastComma);
    integer = text.slice(0, at);
    fraction = text.slice(at + 1);
    if (!groupedCorrectly(integer, group) || /[.,]/.test(fraction)) return undefined;
    integer = integer.split(group).join("");
    reading = { decimalMark };
  } else if (lastDot >= 0 || lastComma >= 0) {
    const mark = lastDot >= 0 ? "." : ",";
    const parts = text.split(mark);
    if (parts.length > 2) {
      if (!groupedCorrectly(text, mark)) return undefined;
      integer = parts.join("");
    } else if (parts[1].length === 3 && mark !== ownDecimal && /^[1-9]\d{0,2}$/.test(parts[0])) {
      integer = parts.join("");
      reading = { groupMark: mark };
    } else if (parts[1].length === 3 && mark !== ownDecimal && parts[0].length > 3) {
      // The language says this mark groups, yet four digits stand before it ("1234.567" in Spanish): a
      // grouping that is not one, and a decimal reading the writer likely did not mean. Neither is guessed.
      return undefined;
    } else {
      [integer, fraction] = parts;
      // Said wherever the other language, or this one's grouping habit, would read it otherwise.
      if (mark !== ownDecimal || (parts[1].length === 3 && /^[1-9]\d{0,2}$/.test(parts[0]))) {
        reading = { decimalMark: mark };
      }
    }
  } else {
    integer = text;
  }
  if (integer === "" && fraction === "") return undefined;
  const whole = integer.replace(/^0+(?=\d)/, "") || "0";
  const decimals = fraction.replace(/0+$/, "");
  const value = `${sign}${whole}${decimals ? `.${decimals}` : ""}`;
  const written = `${sign}${whole}${fraction ? `.${fraction}` : ""}`;
  return { value, ...(written !== value && { written }), ...(reading && { reading }) };
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

/** Decimal text with grouped thousands, every given decimal kept: "19724.56" -> "19.724,56" (es), "19,724.56" (en). */
export function groupDigits(decimal: string, language: AmountLanguage): string {
  const [group, mark] = language === "es" ? [".", ","] : [",", "."];
  const [integer, fraction] = decimal.split(".");
  const grouped = integer.replace(/\B(?=(\d{3})+(?!\d))/g, group);
  return fraction === undefined ? grouped : `${grouped}${mark}${fraction}`;
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

/** A rate as decimal text, shown by THE rule for people (components/ui/format.ts): "197.24560000" -> "197,2456". */
export function formatRateText(decimal: string, language: AmountLanguage): string {
  return formatRate(decimal, language);
}

/** The exact product of two non-negative decimal texts ("1.2" x "236.4587" = "283.75044"), no float between. */
export function multiplyDecimal(a: string, b: string): string {
  const [ai, af = ""] = a.split(".");
  const [bi, bf = ""] = b.split(".");
  const product = (BigInt(ai + af || "0") * BigInt(bi + bf || "0")).toString();
  const scale = af.length + bf.length;
  if (scale === 0) return product;
  const padded = product.padStart(scale + 1, "0");
  return `${padded.slice(0, -scale)}.${padded.slice(-scale)}`.replace(/\.?0+$/, "");
}
