import { HttpProblem } from "../http/problem";
import {
  CURRENCIES_KEY,
  conversionKey,
  type DateRange,
  DEFAULT_CONVERSION,
  latestRateKey,
  RATE_STATUS_KEY,
  ratesHistoryKey,
  valueIn,
} from "../swr/rate-keys";
import { convertAmount } from "./convert";
import { getLatestRate, getRateHistory, listCurrencies } from "./service";
import { getRateStatus } from "./status";

/**
 * What the dashboard's rate panels would ask the API for first, read on the server while it renders the page,
 * as SWR's fallback keyed by the same API paths: the first paint then carries the latest rate, when it was
 * fetched and the rows of the history table, instead of empty panels waiting for scripts and requests. The
 * panels still revalidate from the API once the page runs. A read that fails, or answers nothing, is left out:
 * its panel asks for it as it would without this.
 */
export async function loadRatesForFirstPaint({
  currency,
  range,
}: {
  currency: string;
  range: DateRange | null;
}): Promise<Record<string, unknown>> {
  const other = currency === "USD" ? {} : { currencies: currency };
  const entries = await Promise.all([
    read(latestRateKey(currency), async () => {
      try {
        const rate = await getLatestRate(other);
        return currency === "USD" ? rate : valueIn(rate, currency);
      } catch (error) {
        // No rate stored yet: the card's empty state, as the hook makes of the API's 404.
        if (error instanceof HttpProblem && error.status === 404) return null;
        throw error;
      }
    }),
    read(RATE_STATUS_KEY, getRateStatus),
    read(CURRENCIES_KEY, listCurrencies),
    // The converter's answer before anything is typed, so the first HTML shows it.
    read(conversionKey({ ...DEFAULT_CONVERSION, from: currency }), async () => {
      try {
        return await convertAmount({ ...DEFAULT_CONVERSION, from: currency });
      } catch (error) {
        // No rate of that currency stored: the converter asks, as it would without this, and says so.
        if (error instanceof HttpProblem && error.status === 400) return undefined;
        throw error;
      }
    }),
    range &&
      read(ratesHistoryKey(range, currency), async () => {
        // The same answer as the key asks for: with each rate's previous (include=change).
        const history = await getRateHistory({ ...range, ...other, include: "change" });
        if (currency === "USD") return history;
        return {
          ...history,
          rates: history.rates.map((rate) => valueIn(rate, currency)).filter((rate) => rate !== null),
        };
      }),
  ]);
  return Object.fromEntries(entries.filter((entry): entry is [string, unknown] => Boolean(entry)));
}

async function read(key: string, load: () => Promise<unknown>): Promise<[string, unknown] | undefined> {
  try {
    const value = await load();
    if (value === undefined) return undefined;
    // Through JSON as the API sends it: dates as text, no undefined fields, nothing but plain objects.
    return [key, JSON.parse(JSON.stringify(value))];
  } catch (error) {
    console.warn(`dashboard: ${key} not read for the first paint: ${(error as Error).message}`);
    return undefined;
  }
}
