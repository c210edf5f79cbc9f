import en from "@/messages/en.json";
import es from "@/messages/es.json";

/** Each currency's names in every language, by code, for the pickers' search (components/rates/currency-names). */
export const CURRENCY_SEARCH_NAMES: Readonly<Record<string, readonly string[]>> = Object.fromEntries(
  Object.keys(en.currencies.names).map((code) => [
    code,
    [en.currencies.names, es.currencies.names].map((names) => names[code as keyof typeof names]),
  ]),
);
