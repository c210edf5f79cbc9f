import type { Metadata } from "next";
import { getTranslations } from "next-intl/server";
import { PriceList } from "@/components/rates/price-list";
import { PRICE_CURRENCIES } from "@/components/rates/price-list-items";
import { todayInCaracas } from "@/components/rates/rate-range";
import { loadPriceRatesForFirstPaint } from "@/lib/rates/first-paint";
import { SwrFallback } from "@/lib/swr/swr-fallback";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getTranslations("meta"))("pricesTitle") };
}

/**
 * A shop's price list in bolívares (components/rates/price-list.tsx), on a page of its own to print. Today's
 * rates are read with the page, so its first HTML already shows them.
 */
export default async function PricesPage() {
  const t = await getTranslations("meta");
  const { fallback, missing } = await loadPriceRatesForFirstPaint(PRICE_CURRENCIES, todayInCaracas());
  return (
    <main
      id="main-content"
      tabIndex={-1}
      // Used on a phone at the counter: every button a 44 px target (WCAG 2.5.5), as in the converter.
      className="mx-auto max-w-3xl px-4 py-6 outline-none sm:px-6 print:p-0 [&_button]:min-h-11 [&_button]:min-w-11"
    >
      <h1 className="sr-only">{t("pricesTitle")}</h1>
      <SwrFallback fallback={fallback}>
        <PriceList ratesMissing={missing} />
      </SwrFallback>
    </main>
  );
}
