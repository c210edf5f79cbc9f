import { notFound } from "../http/problem";
import { parseCurrencyList } from "./currencies";
import { findLatestDateWithAll, listCurrencyRatesBetween } from "./repository";

/** The newest stored rate of one currency: bolivares per unit, as the bank published them, and its value date. */
export interface PublishedRate {
  currency: string;
  /** Decimal text, every digit stored ("197.2456", "228.09086692"). */
  rate: string;
  /** The value date, YYYY-MM-DD. */
  date: string;
}

/**
 * The newest rate stored for `currency`, whatever the newest date of the dollar: the bank's home page publishes
 * only a few currencies, its workbooks all of them. 400 for a code the bank does not publish, 404 when none of
 * its rates is stored yet.
 */
export async function getPublishedRate(currency: string): Promise<PublishedRate> {
  const [code] = parseCurrencyList(currency, "query.currency") as string[];
  const date = await findLatestDateWithAll([code], undefined);
  if (date === undefined) {
    throw notFound(`No rate is stored for ${code} yet; POST /rates/ fetches the central bank's current rates.`);
  }
  const [row] = await listCurrencyRatesBetween(date, date, [code]);
  return { currency: code, rate: row.rate, date };
}
