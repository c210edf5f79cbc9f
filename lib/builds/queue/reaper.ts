import { processWide } from "../../server/process-wide";
import { getBuildsConfig } from "../config";
import { listExpiredRunningBuilds, moveBuild } from "../repository";
import { buildsOfThisHost, destroyRuntime, failBuildsWithDeadRuntimes, retryUnfinishedDestroys } from "./executor";
import { purgeExpiredRetention } from "./retention";

/**
 * The reaper of each host: independent of requests, it moves running builds past their expiry to `expired` and destroys
 * their runtime, fails running builds whose runtime died, and purges builds past their retention. Its
 * first pass runs at start, which catches builds that expired while the server was down.
 */
const globalForReaper = processWide<{
  buildReaper?: { timer: NodeJS.Timeout | null; pass: Promise<void> };
}>("buildReaper", () => ({}));

export async function reapExpiredBuilds(now = new Date()): Promise<void> {
  // Each host reaps its own builds: their runtimes run there.
  for (const build of await listExpiredRunningBuilds(now, buildsOfThisHost())) {
    // A destroy that fails now is tried again by retryUnfinishedDestroys: the port stays recorded until then.
    if (await moveBuild(build.id, build.status as "running" | "sleeping", "expired"))
      await destroyRuntime(build.id).catch(() => {});
  }
}

export async function startReaper(): Promise<void> {
  const state = (globalForReaper.buildReaper ??= { timer: null, pass: Promise.resolve() });
  const pass = () => {
    // One pass at a time: a slow destroy must not let the next tick start the same work again.
    state.pass = state.pass
      .then(() => reapExpiredBuilds())
      .then(() => failBuildsWithDeadRuntimes())
      .then(() => retryUnfinishedDestroys())
      .then(async () => void (await purgeExpiredRetention()))
      .catch((error) => console.error("builds: the reaper failed:", error));
    return state.pass;
  };
  await pass();
  state.timer = setInterval(pass, getBuildsConfig().reaper_interval_seconds * 1000);
  state.timer.unref();
}

export function stopReaper(): void {
  const state = globalForReaper.buildReaper;
  if (state?.timer) clearInterval(state.timer);
  if (state) state.timer = null;
}
