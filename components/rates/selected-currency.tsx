"use client";

import { useRouter, useSearchParams } from "next/navigation";
import { useTranslations } from "next-intl";
import { createContext, useContext, useId } from "react";
import { hrefWith } from "@/components/ui/query-string";
import { useCurrencies } from "@/lib/swr/use-currencies";
import { CurrencyCombobox } from "./currency-combobox";
import { useCurrencyName } from "./currency-names";
import { currencyFromQuery } from "./rate-range";

/**
 * The currency the rate card, the chart and the table show, in bolívares per unit: the US dollar unless the
 * person picks another of the stored currencies. Kept in the address (`?currency=EUR`; nothing for the
 * dollar), so a reload or a shared link shows the same currency.
 */
interface SelectedCurrency {
  code: string;
  name: string;
  setCode: (code: string) => void;
}

const DOLLAR = { code: "USD", name: "US dollar" };
const SelectedCurrencyContext = createContext<SelectedCurrency>({ ...DOLLAR, setCode: () => {} });

export function SelectedCurrencyProvider({ children }: { children: React.ReactNode }) {
  const params = useSearchParams();
  const router = useRouter();
  const code = currencyFromQuery(params);
  const { data } = useCurrencies();
  const nameOf = useCurrencyName();
  // The name in the page's language ("Bolívares por dólar estadounidense").
  const name = nameOf(code, data?.currencies.find((currency) => currency.code === code)?.name);
  const setCode = (next: string) =>
    router.replace(hrefWith(params, { currency: next === DOLLAR.code ? null : next }), { scroll: false });
  return (
    <SelectedCurrencyContext.Provider value={{ code, name, setCode }}>{children}</SelectedCurrencyContext.Provider>
  );
}

export const useSelectedCurrency = () => useContext(SelectedCurrencyContext);

/**
 * The picker: the stored currencies, USD first (as GET /currencies orders them), in the same searchable list
 * as the converter's (code and whole name, typed into to filter).
 */
export function CurrencySelect({ className = "" }: { className?: string }) {
  const { code, name, setCode } = useSelectedCurrency();
  const { data } = useCurrencies();
  const t = useTranslations("currencies");
  const id = useId();
  const stored = data?.currencies.length ? data.currencies : [DOLLAR];
  // A linked currency that has no rates here is still shown as chosen (the card then says it has none).
  const currencies = stored.some((currency) => currency.code === code) ? stored : [...stored, { code, name }];
  return (
    <div
      className={`flex max-w-full min-w-0 items-center gap-2 text-sm text-slate-700 dark:text-slate-300 ${className}`}
    >
      <label htmlFor={id} className="whitespace-nowrap">
        {t("label")}
      </label>
      {/* A fixed width, enough for "USD · dólar estadounidense" whole: the longest name ("Netherlands Antillean
          guilder") must not widen the card on a phone; the open list shows every name whole. */}
      <div className="w-64 min-w-0" data-testid="currency-select">
        <CurrencyCombobox id={id} value={code} options={currencies} onChange={setCode} align="end" />
      </div>
    </div>
  );
}
