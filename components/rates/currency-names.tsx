"use client";

import { useTranslations } from "next-intl";
import { createContext, useCallback, useContext } from "react";

/**
 * A currency's name in the page's language ("dólar estadounidense", "US dollar"), from the messages; a code
 * the messages do not know keeps the name the API gave, or the code itself.
 */
export function useCurrencyName(): (code: string, fallback?: string) => string {
  const t = useTranslations("currencies.names");
  return useCallback(
    (code: string, fallback?: string) => (t.has(code as never) ? t(code as never) : (fallback ?? code)),
    [t],
  );
}

/**
 * Every currency's names in every language the pages speak, by code: the pickers find a currency by any of
 * them, so "dólar" finds the dollar on an English page too. Given by the root layout, which reads the message
 * files on the server; the page's own messages hold its language only.
 */
const CurrencySearchNames = createContext<Readonly<Record<string, readonly string[]>>>({});

export function CurrencySearchNamesProvider({
  names,
  children,
}: {
  names: Readonly<Record<string, readonly string[]>>;
  children: React.ReactNode;
}) {
  return <CurrencySearchNames.Provider value={names}>{children}</CurrencySearchNames.Provider>;
}

export const useCurrencySearchNames = () => useContext(CurrencySearchNames);

/** Lower case without accents, so "dolar" finds "dólar" and "bolivar" finds "bolívar". */
export const foldForSearch = (text: string) => text.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase();
