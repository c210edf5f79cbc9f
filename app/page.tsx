import { Suspense } from "react";
import { BuildCounters } from "@/components/builds/build-counters";
import { BuildDetailDrawer } from "@/components/builds/build-detail-drawer";
import { BuildsPanel } from "@/components/builds/builds-panel";
import { LatestRateCard } from "@/components/rates/latest-rate-card";
import { RateHistoryPanel } from "@/components/rates/rate-history-panel";
import { PanelLoading } from "@/components/ui/panel-states";

/** The dashboard: the BCV dollar rate and its history, then the preview builds. */
export default function DashboardPage() {
  return (
    <main className="mx-auto flex max-w-[1600px] flex-col gap-8 px-4 py-6 sm:px-6">
      <h1 className="sr-only">Dashboard</h1>
      <section aria-label="Exchange rates" className="grid grid-cols-1 items-start gap-4 lg:grid-cols-[minmax(18rem,24rem)_minmax(0,1fr)]">
        <LatestRateCard />
        {/* The history reads its range from the query string: the boundary lets the rest of the page prerender. */}
        <Suspense fallback={<PanelLoading label="Loading the rate history" className="h-96" />}>
          <RateHistoryPanel />
        </Suspense>
      </section>
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
