import useSWR from "swr";
import type { ApiError } from "./fetcher";
import type { CurrencyList } from "./types";

export const CURRENCIES_KEY = "/currencies";

/** Every currency with stored rates (USD first), with its name and first and last date. */
export function useCurrencies() {
  return useSWR<CurrencyList, ApiError>(CURRENCIES_KEY);
}
