import { redirect } from "next/navigation";
import { getTranslations } from "next-intl/server";
import { consoleHrefOf } from "@/components/builds/console-path";
import { CurrencyConverter } from "@/components/rates/currency-converter";
import { LatestRateCard } from "@/components/rates/latest-rate-card";
import { RateHistoryPanel } from "@/components/rates/rate-history-panel";
import { currencyFromQuery, rangeOfSelection, selectionFromQuery } from "@/components/rates/rate-range";
import { SelectedCurrencyProvider } from "@/components/rates/selected-currency";
import { loadRatesForFirstPaint } from "@/lib/rates/first-paint";
import { SwrFallback } from "@/lib/swr/swr-fallback";

/**
 * The rates, for people: the rate in force (any published currency), the converter with the way to the price
 * list, the chart and the history. The builds have their console (/builds), the integrators their page.
 */
export default async function RatesPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  // The rate, its freshness and the table's rows come with the first paint (lib/rates/first-paint.ts).
  const query = new URLSearchParams(
    Object.entries(await searchParams).flatMap(([key, value]) => (typeof value === "string" ? [[key, value]] : [])),
  );
  // A build's address from before the console had a page of its own, kept for bookmarks.
  const buildId = query.get("build");
  if (buildId) redirect(consoleHrefOf(buildId));
  const t = await getTranslations("layout");
  const fallback = await loadRatesForFirstPaint({
    currency: currencyFromQuery(query),
    range: rangeOfSelection(selectionFromQuery(query)),
  });
  return (
    <main
      id="main-content"
      tabIndex={-1}
      className="outline-none mx-auto flex max-w-[1600px] flex-col gap-8 px-4 py-6 sm:px-6"
    >
      <h1 className="sr-only">{t("exchangeRates")}</h1>
      {/* The currency picked in the rate card also drives the history's chart and table; both read the query
          string. No Suspense boundary around them: the page is rendered per request, and a boundary would let
          React send their content apart from the page's shell, shown only once an inline script runs. */}
      <SwrFallback fallback={fallback}>
        <SelectedCurrencyProvider>
          <section
            aria-label={t("exchangeRates")}
            className="grid grid-cols-1 items-start gap-4 lg:grid-cols-[minmax(18rem,24rem)_minmax(0,1fr)]"
          >
            <div className="flex min-w-0 flex-col gap-4">
              <LatestRateCard />
              {/* The shop owner's tool, used on a phone at the counter: every button a 44 px target (WCAG 2.5.5). */}
              <div className="[&_button]:min-h-11 [&_button]:min-w-11">
                <CurrencyConverter />
              </div>
            </div>
            <RateHistoryPanel />
          </section>
        </SelectedCurrencyProvider>
      </SwrFallback>
    </main>
  );
}
