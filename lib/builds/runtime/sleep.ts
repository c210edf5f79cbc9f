import path from "node:path";
import { conflict, serviceUnavailable } from "../../http/problem";
import type { Job } from "../../server/job";
import { processWide } from "../../server/process-wide";
import { getBuildsConfig } from "../config";
import { buildEvents } from "../events";
import { buildsOfThisHost, destroyRuntime } from "../queue/executor";
import { type BuildRecord, listBuildsWithStatus, moveBuild, updateBuildRuntime } from "../repository";
import { requireBuild } from "../service";
import { type BuildContext, RuntimeUnavailableError, type StageControl, type StageResult } from "./driver";
import { getDriver } from "./drivers";
import { workspacePaths } from "./workspace";

/**
 * Sleep and wake: a sleeping build's runtime is stopped and its data kept (Compose: `stop`, not
 * `down`; process: its processes end, the workspace stays), its port stays leased so its preview address does
 * not change, and its time to live goes on counting. A wake runs the driver's `start` and `healthcheck` stages
 * again. With max_awake_builds, once more builds run than that, the ones awake longest without a wake or an
 * extension go to sleep (runboat's policy): more previews exist than fit in memory.
 */
const globalForSleep = processWide<{ buildsWaking?: Set<string>; runtimesStopping?: Map<string, Promise<void>> }>(
  "buildsWaking",
  () => ({}),
);

/** Moves a running build to sleeping, then stops its runtime; false when it was no longer running. */
export async function putToSleep(build: BuildRecord): Promise<boolean> {
  if (!(await moveBuild(build.id, "running", "sleeping"))) return false;
  // The build reads sleeping while its runtime still stops: a wake waits for that first (wakeOnce).
  const stopping = (globalForSleep.runtimesStopping ??= new Map());
  const stop = getDriver(build.driver).sleep(getBuildsConfig(), build.id, build.runtimeHandle);
  stopping.set(build.id, stop);
  try {
    await stop;
  } catch (error) {
    // The runtime may still run: the build is awake after all.
    await moveBuild(build.id, "sleeping", "running");
    if (error instanceof RuntimeUnavailableError)
      throw serviceUnavailable(`Build ${build.id} could not be put to sleep: ${error.message}`, 30);
    throw error;
  } finally {
    if (stopping.get(build.id) === stop) stopping.delete(build.id);
  }
  return true;
}

/**
 * A visit through the gateway to a sleeping preview (lib/gateway/wake-on-visit.ts), on the build's host: wakes it
 * as POST /wake does, without a user. Resolves once the wake ended; false when nothing was started (the build is
 * not asleep, or is waking already).
 */
export async function wakeForVisit(buildId: string): Promise<boolean> {
  const build = await requireBuild(buildId);
  if (build.status !== "sleeping") return false;
  return wakeOnce(build);
}

/**
 * Wakes a sleeping build (POST /wake, a visit) unless a wake of it is under way here (false then), then puts to
 * sleep the builds beyond max_awake_builds.
 */
export async function wakeOnce(build: BuildRecord): Promise<boolean> {
  const waking = (globalForSleep.buildsWaking ??= new Set());
  if (waking.has(build.id)) return false;
  waking.add(build.id);
  try {
    // A runtime still stopping would hold the port the wake starts it on again. A sleep that failed left the
    // build running: nothing to wake.
    const stopping = globalForSleep.runtimesStopping?.get(build.id);
    if (
      stopping &&
      !(await stopping.then(
        () => true,
        () => false,
      ))
    )
      return true;
    await wake(build);
  } finally {
    waking.delete(build.id);
  }
  await putExcessBuildsToSleep();
  return true;
}

async function wake(build: BuildRecord): Promise<void> {
  const config = getBuildsConfig();
  const driver = getDriver(build.driver);
  const paths = workspacePaths(config, build.id);
  if (build.port === null) throw conflict(`Build ${build.id} has no port left; destroy it and rebuild.`);
  const context: BuildContext = {
    buildId: build.id,
    port: build.port,
    modules: build.modules === "" ? [] : build.modules.split(","),
    config,
    paths,
    repositories: build.repositories.map((repository) => ({
      alias: repository.alias,
      checkout: path.join(paths.sources, repository.alias),
      modulesPath: config.repositories.find((candidate) => candidate.alias === repository.alias)?.modules_path ?? ".",
    })),
  };
  let runtime = build.runtimeHandle;
  // The stages' own logs go on: a wake appends to the start and healthcheck logs.
  const control = (stage: string): StageControl => ({
    logPath: path.join(paths.logs, `${stage}.log`),
    signal: new AbortController().signal,
    timeoutMs: config.stage_timeout_seconds * 1000,
    recordHandle: async () => undefined,
    runtimeHandle: () => runtime,
    recordRuntime: async (handle) => {
      runtime = handle;
      await updateBuildRuntime(build.id, { runtimeHandle: handle });
    },
  });
  let result: StageResult = await driver.runStage("start", context, control("start"));
  if (result.status === "succeeded") result = await driver.runStage("healthcheck", context, control("healthcheck"));
  if (result.status === "succeeded" || result.status === "skipped") {
    await moveBuild(build.id, "sleeping", "running", { awakeSince: new Date() });
    return;
  }
  const message = result.status === "failed" ? result.message : "The wake was interrupted.";
  if (
    await moveBuild(build.id, "sleeping", "failed", {
      failureStage: "wake",
      failureMessage: `The runtime did not come back: ${message}`,
    })
  ) {
    await destroyRuntime(build.id).catch((error) =>
      console.error(`builds: could not destroy the runtime of build ${build.id} yet:`, error),
    );
  }
}

/**
 * When a running build last started, woke, got extended or was visited through the gateway: the policy puts the
 * oldest to sleep first, and sleep_after_idle_seconds the ones idle that long.
 */
function awakeSince(build: BuildRecord): number {
  const since = (build.awakeSince ?? build.finishedAt ?? build.createdAt).getTime();
  return Math.max(since, build.visitedAt?.getTime() ?? 0);
}

/** sleep_after_idle_seconds: puts this host's previews that nobody started, woke or visited for that long to sleep. */
export async function putIdleBuildsToSleep(now = Date.now()): Promise<void> {
  const idleSeconds = getBuildsConfig().sleep_after_idle_seconds;
  if (idleSeconds === undefined) return;
  const awake = await listBuildsWithStatus(["running"], buildsOfThisHost());
  for (const build of awake) {
    if (build.runtimeHandle === null || now - awakeSince(build) < idleSeconds * 1000) continue;
    try {
      await putToSleep(build);
    } catch (error) {
      console.error(`builds: build ${build.id} could not be put to sleep (sleep_after_idle_seconds):`, error);
    }
  }
}

/** max_awake_builds: puts the builds awake longest to sleep until no more than that many run. */
export async function putExcessBuildsToSleep(): Promise<void> {
  const max = getBuildsConfig().max_awake_builds;
  if (max === undefined) return;
  // max_awake_builds is each host's own: the memory it bounds is that host's.
  const awake = (await listBuildsWithStatus(["running"], buildsOfThisHost())).filter(
    (build) => build.runtimeHandle !== null,
  );
  if (awake.length <= max) return;
  const oldestFirst = awake.sort((a, b) => awakeSince(a) - awakeSince(b));
  for (const build of oldestFirst.slice(0, awake.length - max)) {
    try {
      await putToSleep(build);
    } catch (error) {
      console.error(`builds: build ${build.id} could not be put to sleep (max_awake_builds):`, error);
    }
  }
}

/** The policy follows builds reaching running: a new preview may put an older one to sleep. */
const globalForPolicy = processWide<{ sleepPolicyListener?: () => void }>("sleepPolicyListener", () => ({}));

function startSleepPolicy(): void {
  if (globalForPolicy.sleepPolicyListener) return;
  const listener = () =>
    void putExcessBuildsToSleep().catch((error) => console.error("builds: max_awake_builds failed:", error));
  globalForPolicy.sleepPolicyListener = listener;
  buildEvents().on("running", listener);
  // Builds that ran past the limit while the server was down.
  listener();
}

function stopSleepPolicy(): void {
  if (!globalForPolicy.sleepPolicyListener) return;
  buildEvents().off("running", globalForPolicy.sleepPolicyListener);
  globalForPolicy.sleepPolicyListener = undefined;
}

/** The sleep policy as a background job: max_awake_builds as builds start, sleep_after_idle_seconds on a timer. */
export const sleepPolicyJob: Job = {
  name: "sleep policy",
  runsOn: "each",
  start: startSleepPolicy,
  stop: stopSleepPolicy,
  every: () => {
    const idleSeconds = getBuildsConfig().sleep_after_idle_seconds;
    // A preview sleeps within a quarter of the idle time after it is due (every 30 s at most).
    return idleSeconds === undefined ? null : Math.min(30_000, (idleSeconds * 1000) / 4);
  },
  run: () => putIdleBuildsToSleep(),
};
