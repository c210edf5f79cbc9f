/**
 * Display formats shared by the panels, in the page's language: Spanish writes 1.234.567,89, "26 nov 2026" and
 * 24-hour times; English 1,234,567.89, "Nov 26, 2026" and 12-hour times.
 *
 * THE rule for bolívares and rates shown to people, as Venezuelan shops write them:
 * - The bolívar is written "Bs." before the number, with a space, in both languages ("Bs. 2.950,13",
 *   "Bs. 236,4587"); VES stays the code in data, the API and the exports.
 * - An amount of money has its currency's minor unit (2 decimals for bolívares).
 * - A rate has 4 decimals, always (so columns line up), rounded from the bank's 8: the dollar's rate is
 *   published with 4 significant decimals and shops quote 2 to 4. A rate below 1 (an inverse or cross rate,
 *   "1 Bs. = 0,004229 USD") keeps 4 significant digits instead, at most 8 decimals.
 * The exports and the API keep every decimal the bank publishes.
 */
import type { Locale } from "@/i18n/locale";

export type { Locale };

/**
 * The Intl locale for numbers: Spanish groups every number above 999 (as the bank and Venezuelans write
 * 1.234,56), where Intl's "es" alone leaves four digits ungrouped; English is the United States'.
 */
const NUMBER_LOCALES: Record<Locale, string> = { es: "es", en: "en-US" };
const DATE_LOCALES: Record<Locale, string> = { es: "es", en: "en-US" };

const numberFormats = new Map<string, Intl.NumberFormat>();

/** One cached Intl.NumberFormat per language and options. */
export function numberFormat(locale: Locale, options: Intl.NumberFormatOptions = {}): Intl.NumberFormat {
  const key = `${locale}:${JSON.stringify(options)}`;
  let format = numberFormats.get(key);
  if (!format) {
    format = new Intl.NumberFormat(NUMBER_LOCALES[locale], {
      ...(locale === "es" ? { useGrouping: "always" as const } : {}),
      ...options,
    });
    numberFormats.set(key, format);
  }
  return format;
}

/** The bolívar's symbol for people (the code, VES, is for data). */
export const BOLIVAR_SYMBOL = "Bs.";

/** Decimals of a rate shown to people, by the rule above. */
export const RATE_DISPLAY_DECIMALS = 4;

/**
 * A rate by the rule above: "236.45870000" -> "236,4587" (es), 275.1234567 -> "275.1235" (en),
 * "0.00422919" -> "0,004229". Decimal text is formatted exactly, with no float between.
 */
export function formatRate(value: number | string, locale: Locale): string {
  const below1 = Math.abs(Number(value)) < 1 && Number(value) !== 0;
  const options: Intl.NumberFormatOptions = below1
    ? { maximumSignificantDigits: RATE_DISPLAY_DECIMALS, maximumFractionDigits: 8, roundingPriority: "lessPrecision" }
    : { minimumFractionDigits: RATE_DISPLAY_DECIMALS, maximumFractionDigits: RATE_DISPLAY_DECIMALS };
  // Intl formats decimal text exactly (ES2023), though TypeScript's lib still types format() as number.
  return numberFormat(locale, options).format(value as number);
}

/** A change of a rate, signed, with the rate's decimals: "+0,4486", "−1,2500". */
export const formatChange = (value: number, locale: Locale) =>
  numberFormat(locale, {
    minimumFractionDigits: RATE_DISPLAY_DECIMALS,
    maximumFractionDigits: RATE_DISPLAY_DECIMALS,
    signDisplay: "exceptZero",
  }).format(value);

/** An amount already written in the page's language, with its currency for people: "Bs. 2.950,13", "3,99 USD". */
export function withCurrency(amount: string, code: string): string {
  return code === "VES" ? `${BOLIVAR_SYMBOL} ${amount}` : `${amount} ${code}`;
}

/** A number of bolívares as people read it: "Bs. 2.950,13" (2 decimals). */
export const formatBolivars = (value: number | string, locale: Locale) =>
  withCurrency(
    numberFormat(locale, { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(value as number),
    "VES",
  );
export const formatPercent = (fraction: number, locale: Locale) =>
  numberFormat(locale, {
    style: "percent",
    minimumFractionDigits: 2,
    maximumFractionDigits: 2,
    signDisplay: "exceptZero",
  }).format(fraction);

/** A YYYY-MM-DD calendar date, shown without shifting it through a time zone: "26 nov 2026", "Nov 26, 2026". */
export function formatDay(date: string, locale: Locale, style: "long" | "short" = "long"): string {
  const [year, month, day] = date.split("-").map(Number);
  return new Date(Date.UTC(year, month - 1, day))
    .toLocaleDateString(DATE_LOCALES[locale], {
      timeZone: "UTC",
      year: style === "long" ? "numeric" : "2-digit",
      month: "short",
      day: "numeric",
    })
    .replace(/\.(?= |$)/, "");
}

/**
 * A day with its weekday, for the day a published rate comes into force: "miércoles 2 dic", "Wed, Dec 2"
 * (the rate is days ahead at most, so no year).
 */
export function formatWeekday(date: string, locale: Locale): string {
  const [year, month, day] = date.split("-").map(Number);
  const text = new Date(Date.UTC(year, month - 1, day)).toLocaleDateString(DATE_LOCALES[locale], {
    timeZone: "UTC",
    weekday: locale === "es" ? "long" : "short",
    month: "short",
    day: "numeric",
  });
  return locale === "es" ? text.replace(",", "").replace(/\.(?= |$)/, "") : text;
}

/**
 * A moment in the viewer's time zone, or in `timeZone`, which it names ("Nov 24, 02:41:07 PM GMT-4",
 * "24 nov, 18:41:07 UTC"): never a bare clock time.
 */
export function formatDateTime(
  iso: string | Date | null | undefined,
  locale: Locale,
  seconds = true,
  timeZone?: "UTC",
): string {
  if (!iso) return "—";
  return new Date(iso).toLocaleString(DATE_LOCALES[locale], {
    month: "short",
    day: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    ...(seconds ? { second: "2-digit" } : {}),
    timeZoneName: "short",
    timeZone,
  });
}

/** "1 h 05 min", "3 min 12 s", "850 ms": the two most significant units (symbols both languages share). */
export function formatDuration(ms: number, locale: Locale): string {
  if (ms < 1_000) return `${Math.max(0, Math.round(ms))} ms`;
  const seconds = Math.floor(ms / 1_000);
  if (seconds < 60)
    return `${numberFormat(locale, { maximumFractionDigits: seconds < 10 ? 1 : 0 }).format(ms / 1_000)} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${String(seconds % 60).padStart(2, "0")} s`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h ${String(minutes % 60).padStart(2, "0")} min`;
  return `${Math.floor(hours / 24)} d ${hours % 24} h`;
}

/**
 * A value with exactly `digits` decimals, so a right-aligned column of tabular figures lines up on the decimal
 * mark; `signed` for changes (+0,5, −0,25).
 */
export function formatFixed(value: number, digits: number, locale: Locale, signed = false): string {
  return numberFormat(locale, {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
    signDisplay: signed ? "exceptZero" : "auto",
  }).format(value);
}

/** A TTL in seconds as the largest whole unit and its count ("1 hour", "2 días"), for the messages to word. */
export function ttlParts(seconds: number): { unit: "day" | "hour" | "minute" | "second"; count: number } {
  for (const [size, unit] of [
    [86_400, "day"],
    [3_600, "hour"],
    [60, "minute"],
  ] as const) {
    if (seconds % size === 0 && seconds >= size) return { unit, count: seconds / size };
  }
  return { unit: "second", count: seconds };
}

/** How long ago, in the largest whole unit, for the messages to word ("5 min ago", "hace 5 min"). */
export function ageParts(iso: string, now = Date.now()): { unit: "now" | "minute" | "hour" | "day"; count: number } {
  const seconds = Math.max(0, Math.floor((now - new Date(iso).getTime()) / 1000));
  if (seconds < 45) return { unit: "now", count: 0 };
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return { unit: "minute", count: minutes };
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return { unit: "hour", count: hours };
  return { unit: "day", count: Math.floor(hours / 24) };
}
