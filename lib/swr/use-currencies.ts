import useSWR from "swr";
import type { ApiError } from "./fetcher";
import { CURRENCIES_KEY } from "./rate-keys";
import type { CurrencyList } from "./types";

export { CURRENCIES_KEY };

/** Every currency with stored rates (USD first), with its name and first and last date. */
export function useCurrencies() {
  return useSWR<CurrencyList, ApiError>(CURRENCIES_KEY);
}
