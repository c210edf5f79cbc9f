"use client";

import { useTranslations } from "next-intl";
import { useSelectedCurrency } from "./selected-currency";

/** The way from the rate to the badge and the card for one's own site, on the integrators' page. */
export function EmbedLink() {
  const t = useTranslations("latestRate");
  const currency = useSelectedCurrency();
  const query = currency.code === "USD" ? "" : `?currency=${currency.code}`;
  return (
    <a
      href={`/developers${query}#embed`}
      className="inline-flex min-h-6 items-center text-sm font-medium text-indigo-700 hover:underline dark:text-indigo-300"
      data-testid="embed-link"
    >
      {t("embed")}
    </a>
  );
}
