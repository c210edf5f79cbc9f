import { getTranslations } from "next-intl/server";
import { Suspense } from "react";
import { BuildCounters } from "@/components/builds/build-counters";
import { BuildDetailDrawer } from "@/components/builds/build-detail-drawer";
import { BuildWithoutScripts } from "@/components/builds/build-without-scripts";
import { BuildsPanel } from "@/components/builds/builds-panel";
import { CurrencyConverter } from "@/components/rates/currency-converter";
import { LatestRateCard } from "@/components/rates/latest-rate-card";
import { RateHistoryPanel } from "@/components/rates/rate-history-panel";
import { currencyFromQuery, rangeOfSelection, selectionFromQuery } from "@/components/rates/rate-range";
import { RateWebhooksPanel } from "@/components/rates/rate-webhooks-panel";
import { SelectedCurrencyProvider } from "@/components/rates/selected-currency";
import { loadBuildsForFirstPaint } from "@/lib/builds/first-paint";
import { loadRatesForFirstPaint } from "@/lib/rates/first-paint";
import { SwrFallback } from "@/lib/swr/swr-fallback";

/** The dashboard: the BCV rates (any published currency), their history and a converter, then the preview builds. */
export default async function DashboardPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  // The rate, its freshness, the table's rows and the builds come with the first paint (lib/*/first-paint.ts).
  const query = new URLSearchParams(
    Object.entries(await searchParams).flatMap(([key, value]) => (typeof value === "string" ? [[key, value]] : [])),
  );
  const t = await getTranslations("layout");
  const buildId = query.get("build");
  const [fallback, buildsFallback] = await Promise.all([
    loadRatesForFirstPaint({
      currency: currencyFromQuery(query),
      range: rangeOfSelection(selectionFromQuery(query)),
    }),
    loadBuildsForFirstPaint(),
  ]);
  return (
    <main
      id="main-content"
      tabIndex={-1}
      className="outline-none mx-auto flex max-w-[1600px] flex-col gap-8 px-4 py-6 sm:px-6"
    >
      <h1 className="sr-only">{t("dashboard")}</h1>
      {/* The build drawer is a script; where none run, the build named in the address is written here. */}
      {buildId && <BuildWithoutScripts buildId={buildId} />}
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
              <CurrencyConverter />
            </div>
            <RateHistoryPanel />
          </section>
        </SelectedCurrencyProvider>
      </SwrFallback>
      {/* The rates' developer tool of a signed-in user, under the rates it announces; full width for its deliveries. */}
      <RateWebhooksPanel />
      <SwrFallback fallback={buildsFallback}>
        <section aria-label={t("previewBuilds")} className="flex flex-col gap-4">
          <BuildCounters />
          <BuildsPanel />
        </section>
      </SwrFallback>
      {/* useSearchParams needs a Suspense boundary so the rest of the page can still be prerendered. */}
      <Suspense>
        <BuildDetailDrawer />
      </Suspense>
    </main>
  );
}
