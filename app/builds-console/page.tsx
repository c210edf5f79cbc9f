import type { Metadata } from "next";
import { headers } from "next/headers";
import { getTranslations } from "next-intl/server";
import { Suspense } from "react";
import { BuildCounters } from "@/components/builds/build-counters";
import { BuildDetailDrawer } from "@/components/builds/build-detail-drawer";
import { BuildWithoutScripts } from "@/components/builds/build-without-scripts";
import { BuildsPanel } from "@/components/builds/builds-panel";
import { ConsolePage } from "@/components/builds/console-page";
import { viewerOf } from "@/lib/auth/guard";
import { loadBuildsForFirstPaint } from "@/lib/builds/first-paint";
import { SwrFallback } from "@/lib/swr/swr-fallback";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getTranslations("meta"))("buildsTitle") };
}

/**
 * The builds console, for teams: the list first, then the counters; a build opens in a drawer (`?build=<id>`).
 * Served at /builds to a browser (proxy.ts); its folder is apart because app/builds/ is the API's.
 */
export default async function BuildsConsolePage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const build = (await searchParams).build;
  const buildId = typeof build === "string" ? build : null;
  // Who is signed in (the session cookie), for the builds a private repository keeps from strangers.
  const viewer = await viewerOf(new Request("http://dashboard.invalid/", { headers: await headers() }));
  const fallback = await loadBuildsForFirstPaint(viewer);
  return (
    <ConsolePage current="builds">
      {/* The build drawer is a script; where none run, the build named in the address is written here. */}
      {buildId && <BuildWithoutScripts buildId={buildId} viewer={viewer} />}
      <SwrFallback fallback={fallback}>
        <BuildsPanel />
        <BuildCounters />
      </SwrFallback>
      {/* useSearchParams needs a Suspense boundary so the rest of the page can still be prerendered. */}
      <Suspense>
        <BuildDetailDrawer />
      </Suspense>
    </ConsolePage>
  );
}
