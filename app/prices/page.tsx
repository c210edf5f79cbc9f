import type { Metadata } from "next";
import { getTranslations } from "next-intl/server";
import { PriceList } from "@/components/rates/price-list";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getTranslations("meta"))("pricesTitle") };
}

/** A shop's price list in bolívares (components/rates/price-list.tsx), on a page of its own to print. */
export default async function PricesPage() {
  const t = await getTranslations("meta");
  return (
    <main id="main-content" tabIndex={-1} className="mx-auto max-w-3xl px-4 py-6 outline-none sm:px-6 print:p-0">
      <h1 className="sr-only">{t("pricesTitle")}</h1>
      <PriceList />
    </main>
  );
}
