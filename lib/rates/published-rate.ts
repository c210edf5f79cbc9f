import { notFound } from "../http/problem";
import { parseCurrencyCode } from "./currencies";
import { ratesToday } from "./in-force";
import { findLatestDateWithAll, listCurrencyRatesBetween } from "./repository";

/** One rate of one currency: bolivares per unit, as the bank published them, and its value date. */
export interface PublishedRate {
  currency: string;
  /** Decimal text, every digit stored ("197.2456", "228.09086692"). */
  rate: string;
  /** The value date, YYYY-MM-DD. */
  date: string;
}

/** The rate of `currency` in force today, and the next one when the bank has published it ahead. */
export interface RateInForce extends PublishedRate {
  next: PublishedRate | undefined;
}

/** The rates of `currency` a shop's card shows: the one in force today (none yet, before its first value date), the next. */
export interface CardRates {
  currency: string;
  inForce: PublishedRate | undefined;
  next: PublishedRate | undefined;
}

/**
 * The rate of `currency` in force today in Caracas (lib/rates/in-force.ts): that of its newest value date on or
 * before today, whatever the dollar's; and its next rate, when a value date after today is stored. 400 for a
 * code the bank does not publish, 404 when none of its rates is stored.
 */
export async function getCardRates(currency: string): Promise<CardRates> {
  const code = parseCurrencyCode(currency);
  const today = ratesToday();
  const [inForceDate, newestDate] = await Promise.all([
    findLatestDateWithAll([code], today),
    findLatestDateWithAll([code], undefined),
  ]);
  if (newestDate === undefined) {
    throw notFound(`No rate is stored for ${code} yet; POST /rates/ fetches the central bank's current rates.`);
  }
  const rateOn = async (date: string): Promise<PublishedRate> => {
    const [row] = await listCurrencyRatesBetween(date, date, [code]);
    return { currency: code, rate: row.rate, date };
  };
  const [inForce, next] = await Promise.all([
    inForceDate === undefined ? undefined : rateOn(inForceDate),
    newestDate > today ? rateOn(newestDate) : undefined,
  ]);
  return { currency: code, inForce, next };
}

/** The rate of `currency` in force today and the next one (getCardRates); 404 too when none is in force yet. */
export async function getRateInForce(currency: string): Promise<RateInForce> {
  const { currency: code, inForce, next } = await getCardRates(currency);
  if (!inForce) {
    throw notFound(
      `No rate of ${code} is in force yet: its first value date is ${next?.date}, after today (${ratesToday()}).`,
    );
  }
  return { ...inForce, next };
}
