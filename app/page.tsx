import { Suspense } from "react";
import { BuildCounters } from "@/components/builds/build-counters";
import { BuildDetailDrawer } from "@/components/builds/build-detail-drawer";
import { BuildsPanel } from "@/components/builds/builds-panel";
import { CurrencyConverter } from "@/components/rates/currency-converter";
import { LatestRateCard } from "@/components/rates/latest-rate-card";
import { RateHistoryPanel } from "@/components/rates/rate-history-panel";
import { SelectedCurrencyProvider } from "@/components/rates/selected-currency";
import { PanelLoading } from "@/components/ui/panel-states";

/** The dashboard: the BCV rates (any published currency), their history and a converter, then the preview builds. */
export default function DashboardPage() {
  return (
    <main id="main-content" tabIndex={-1} className="outline-none mx-auto flex max-w-[1600px] flex-col gap-8 px-4 py-6 sm:px-6">
      <h1 className="sr-only">Dashboard</h1>
      {/* The currency picked in the rate card also drives the history's chart and table; it is read from the
          query string, hence the boundary. */}
      <Suspense fallback={<PanelLoading label="Loading the rates" className="h-96" />}>
        <SelectedCurrencyProvider>
          <section aria-label="Exchange rates" className="grid grid-cols-1 items-start gap-4 lg:grid-cols-[minmax(18rem,24rem)_minmax(0,1fr)]">
            <div className="flex min-w-0 flex-col gap-4">
              <LatestRateCard />
              <CurrencyConverter />
            </div>
            {/* The history reads its range from the query string: the boundary lets the rest of the page prerender. */}
            <Suspense fallback={<PanelLoading label="Loading the rate history" className="h-96" />}>
              <RateHistoryPanel />
            </Suspense>
          </section>
        </SelectedCurrencyProvider>
      </Suspense>
      <section aria-label="Preview builds" className="flex flex-col gap-4">
        <BuildCounters />
        <BuildsPanel />
      </section>
      {/* useSearchParams needs a Suspense boundary so the rest of the page can still be prerendered. */}
      <Suspense>
        <BuildDetailDrawer />
      </Suspense>
    </main>
  );
}
