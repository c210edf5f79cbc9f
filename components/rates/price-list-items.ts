/**
 * A shop's price list: items priced in dollars or euros, kept in the browser, and read from text pasted from a
 * spreadsheet (tab-separated cells) or a chat ("Harina PAN 1,20", "Queso; 4,50; EUR").
 */
import { type AmountLanguage, type ParsedAmount, parseAmount } from "./amount";

export const PRICE_CURRENCIES = ["USD", "EUR"] as const;
export type PriceCurrency = (typeof PRICE_CURRENCIES)[number];

export interface PriceItem {
  name: string;
  /** The price as the API reads amounts: a dot decimal ("1.2"). */
  price: string;
  currency: PriceCurrency;
}

const CURRENCY_WORDS: Record<string, PriceCurrency> = { usd: "USD", $: "USD", us$: "USD", eur: "EUR", "€": "EUR" };

/** A price whose writing allows another reading ("1.250"), as written and as read, to say how it was read. */
export interface PriceReading {
  item: string;
  text: string;
  parsed: ParsedAmount;
}

/**
 * One item a line: the name, then the price, then optionally the currency (USD by default, `$`, `EUR`, `€`),
 * separated by tabs or semicolons, or by the last spaces. Lines that say no price are returned apart, as written;
 * prices that could be read two ways are named in `readings` (amount.ts says which).
 */
export function parsePastedPrices(
  text: string,
  language: AmountLanguage,
): { items: PriceItem[]; unreadable: string[]; readings: PriceReading[] } {
  const items: PriceItem[] = [];
  const unreadable: string[] = [];
  const readings: PriceReading[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === "") continue;
    const read = parseLine(line, language);
    if (!read) {
      unreadable.push(line);
      continue;
    }
    items.push(read.item);
    if (read.parsed.reading) readings.push({ item: read.item.name, text: read.text, parsed: read.parsed });
  }
  return { items, unreadable, readings };
}

function parseLine(
  line: string,
  language: AmountLanguage,
): { item: PriceItem; text: string; parsed: ParsedAmount } | undefined {
  let cells = line.split(/\t|;/).map((cell) => cell.trim());
  if (cells.length < 2) {
    // "Harina PAN 1,20 USD": the price (and a currency) are the last words.
    const words = line.split(/\s+/);
    const last = words.at(-1)!.toLowerCase();
    const tail = last in CURRENCY_WORDS ? 2 : 1;
    if (words.length <= tail) return undefined;
    cells = [words.slice(0, -tail).join(" "), ...words.slice(-tail)];
  }
  const [name, priceText, currencyText = "USD", ...rest] = cells.filter((cell) => cell !== "");
  if (!name || !priceText || rest.length > 0) return undefined;
  // "$1,20" and "1,20€" carry the currency on the number.
  const sign = priceText.match(/^(US\$|\$|€)|(\$|€)$/i)?.[0];
  const currency = CURRENCY_WORDS[(sign ?? currencyText).toLowerCase()];
  const amountText = (sign ? priceText.replace(sign, "") : priceText).trim();
  const parsed = parseAmount(amountText, language);
  if (!currency || !parsed || !/[1-9]/.test(parsed.value) || parsed.value.startsWith("-")) return undefined;
  return { item: { name, price: parsed.value, currency }, text: amountText, parsed };
}
