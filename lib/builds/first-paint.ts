import { buildsKey } from "../swr/build-keys";
import { listBuildsQuerySchema } from "./schemas";
import { listBuilds } from "./service";
import type { BuildViewer } from "./visibility";

/**
 * The builds panel's first request (the newest page, every status), read on the server while it renders the
 * builds console, as SWR's fallback keyed by the same API path: the first HTML carries the table and the counters
 * instead of panels waiting for scripts, with the builds `viewer` may see, as the API would show them. A read that
 * fails is left out; the panel then asks as it would.
 */
export async function loadBuildsForFirstPaint(viewer: BuildViewer): Promise<Record<string, unknown>> {
  const key = buildsKey();
  try {
    const list = await listBuilds(
      listBuildsQuerySchema.parse(Object.fromEntries(new URLSearchParams(key.split("?")[1]))),
      viewer,
    );
    // Through JSON as the API sends it: dates as text, no undefined fields.
    return { [key]: JSON.parse(JSON.stringify(list)) };
  } catch (error) {
    console.warn(`dashboard: ${key} not read for the first paint: ${(error as Error).message}`);
    return {};
  }
}
