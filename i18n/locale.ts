import Negotiator from "negotiator";

/** The languages the pages speak. Spanish first: the people who use the rates live in Venezuela. */
export const LOCALES = ["es", "en"] as const;
export type Locale = (typeof LOCALES)[number];

/** The cookie that keeps the language picked in the header, for a year. */
export const LOCALE_COOKIE = "lang";
export const LOCALE_COOKIE_MAX_AGE = 365 * 24 * 60 * 60;

export const isLocale = (value: unknown): value is Locale => LOCALES.includes(value as Locale);

/**
 * The language of a page: the one picked in the header (the cookie), else Spanish when the browser's first
 * language is Spanish of any country (`es`, `es-VE`, `es-419`), else English. The first language, not the
 * best match: a browser set to English before Spanish gets English.
 */
export function pickLocale(cookie: string | undefined, acceptLanguage: string | null | undefined): Locale {
  if (isLocale(cookie)) return cookie;
  const [first] = new Negotiator({ headers: { "accept-language": acceptLanguage ?? "" } }).languages();
  return first?.toLowerCase().split("-")[0] === "es" ? "es" : "en";
}
