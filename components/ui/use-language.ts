import { useSyncExternalStore } from "react";
import type { AmountLanguage } from "@/components/rates/amount";

function subscribe(onChange: () => void) {
  window.addEventListener("languagechange", onChange);
  return () => window.removeEventListener("languagechange", onChange);
}

function browserLanguage(): AmountLanguage {
  const first = navigator.languages?.[0] ?? navigator.language ?? document.documentElement.lang;
  return first.toLowerCase().startsWith("es") ? "es" : "en";
}

/** The person's language as the browser states it first: Spanish for any es-*, English otherwise. */
export function useLanguage(): AmountLanguage {
  return useSyncExternalStore(subscribe, browserLanguage, () =>
    typeof document === "undefined" ? "en" : document.documentElement.lang.startsWith("es") ? "es" : "en",
  );
}
