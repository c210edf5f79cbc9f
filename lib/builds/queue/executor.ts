import fs from "node:fs";
import path from "node:path";
import PQueue from "p-queue";
import { storageFault } from "../../http/problem";
import { whenNoRequestsInFlight } from "../../http/requests-in-flight";
import { instanceMetrics } from "../../metrics/registry";
import { buildProcessBaseEnv, getEnv } from "../../server/env";
import type { Job } from "../../server/job";
import { processWide } from "../../server/process-wide";
import { runJobSoon } from "../../server/scheduler";
import { getTopology } from "../../topology";
import { recordLogChecks } from "../build-errors";
import { type BuildsConfig, getBuildsConfig } from "../config";
import { buildEvents } from "../events";
import { mirrorPath, syncMirror } from "../git/mirrors";
import { checkLogFile, compileLogCheckRules } from "../logs/log-checks";
import {
  type BuildRecord,
  claimQueuedBuild,
  closeOpenStages,
  closePendingStages,
  findBuild,
  type HostScope,
  listBuildsAwaitingDestroy,
  listBuildsWithStatus,
  moveBuild,
  updateBuildRuntime,
  updateStage,
} from "../repository";
import {
  type BuildContext,
  describeOutcome,
  type RuntimeDriver,
  type StageResult,
  timeoutMessage,
} from "../runtime/driver";
import { getDriver } from "../runtime/drivers";
import { holdPort, leasePort, releasePort } from "../runtime/ports";
import { encodeProcessHandle } from "../runtime/process-handles";
import { runToCompletion, sleep } from "../runtime/processes";
import { checkStageUser } from "../runtime/run-as";
import { removeRuntimeFiles, workspacePaths } from "../runtime/workspace";
import { type BuildStatus, IN_PROGRESS_STATUSES, type StageName } from "../status";

/**
 * The executor. The queue is the database: queued builds wait there, and an instance with a free slot (fewer
 * builds claimed than its max_concurrent_builds) claims the oldest (`claimQueuedBuild`: the build becomes
 * checking_out with this instance as its `host`), then runs its stages in order on its run queue, a p-queue whose
 * concurrency is max_concurrent_builds. A build is claimed only when the run queue has room, so it starts at once
 * and never waits in memory, where a restart would lose it. Claims are tried when a build is
 * created here, when another instance announces one (PostgreSQL's NOTIFY), when a slot frees, and every
 * CLAIM_POLL_MS in case a notice was lost. `max_concurrent_builds: 0` makes an instance that accepts builds and
 * never claims one. A restart loses no queued build; what a host leaves in progress its recovery fails, or,
 * when it does not come back, another instance does (lib/cluster/lost-hosts.ts).
 *
 * Its state is kept on globalThis: Next bundles instrumentation.ts (which starts it) apart from the route
 * handlers (which enqueue and cancel), and both must reach the same slots and the same table of running builds.
 */
interface ActiveBuild {
  controller: AbortController;
  done: Promise<void>;
  driver: RuntimeDriver;
  /** The runtime's handle once the start stage recorded it, so a shutdown can stop a preview not yet running. */
  runtime?: string;
}

interface ExecutorState {
  /** max_concurrent_builds: how many builds this instance runs at once. */
  slots: number;
  /** The claimed builds' runs, at most `slots` at once; `active` holds those whose run has begun. */
  runs: PQueue;
  active: Map<string, ActiveBuild>;
  stopListening: (() => void) | null;
  stopping: boolean;
}

const globalForExecutor = processWide<{ buildExecutor?: ExecutorState }>("buildExecutor", () => ({}));

/** How long a stage start waits at most for the API requests in flight to be answered (runStage). */
const STAGE_START_GIVES_WAY_MS = 250;

/** How often an instance with a free slot looks for queued builds without being told of one. */
const CLAIM_POLL_MS = 10_000;

function executor(): ExecutorState {
  globalForExecutor.buildExecutor ??= {
    slots: getBuildsConfig().max_concurrent_builds,
    // p-queue wants a concurrency of at least 1; with no slot nothing is ever claimed, so nothing runs.
    runs: new PQueue({ concurrency: Math.max(1, getBuildsConfig().max_concurrent_builds) }),
    active: new Map(),
    stopListening: null,
    stopping: false,
  };
  return globalForExecutor.buildExecutor;
}

/** The builds this instance looks after (their runtime, port and workspace are here): lib/topology decides. */
export function buildsOfThisHost(): HostScope {
  return getTopology().buildsOfThisHost();
}

function isOfThisHost(build: Pick<BuildRecord, "host">, here: HostScope): boolean {
  return here === undefined || build.host === null || build.host === here;
}

/** The driver a build was created with: its stages, handles and runtime are that driver's. */
function driverOf(build: Pick<BuildRecord, "driver">): RuntimeDriver {
  return getDriver(build.driver);
}

/** This instance's slots and how many builds hold one (GET /metrics). */
export function executorSlots(): { total: number; used: number } {
  const state = executor();
  return { total: state.slots, used: claimedCount(state) };
}

/** A build was queued through this instance: claim it here if a slot is free, and tell the other instances. */
export function enqueueBuild(buildId: string): void {
  buildEvents().emit("queued", buildId);
  wakeClaims();
  getTopology()
    .notify("build_queued")
    .catch((error) => console.error(`builds: could not announce build ${buildId}: ${(error as Error).message}`));
}

/**
 * Claims queued builds while slots are free: a run of the executor's job, one at a time, once more when woken
 * meanwhile. Nothing before the recovery has ended: it must not take a fresh claim for a build a previous process
 * left.
 */
export function wakeClaims(): void {
  runJobSoon(EXECUTOR_JOB);
}

/** The builds claimed and not yet over: each holds a slot. */
function claimedCount(state: ExecutorState): number {
  return state.runs.pending + state.runs.size;
}

async function claimWhileFree(signal: AbortSignal): Promise<void> {
  const state = executor();
  while (!signal.aborted && !state.stopping && claimedCount(state) < state.slots) {
    let buildId: string | null;
    try {
      buildId = await claimQueuedBuild(getTopology().instanceName(), new Date());
    } catch (error) {
      // The poll tries again.
      console.error(`builds: could not claim a queued build: ${(error as Error).message}`);
      return;
    }
    if (buildId === null) break;
    const claimed = buildId;
    void state.runs
      .add(() => runBuild(claimed))
      .catch((error) => console.error(`builds: build ${claimed} failed unexpectedly:`, error));
  }
}

/**
 * Starts the executor: syncs the mirrors in the background, recovers what a previous process of this host
 * left behind, then claims the builds that are waiting, and listens for more.
 */
async function startExecutor(): Promise<void> {
  const config = getBuildsConfig();
  fs.mkdirSync(config.builds_root, { recursive: true });
  for (const warning of checkStageUser(config, getEnv().DATA_DIR)) console.warn(`builds: ${warning}`);
  if (config.max_concurrent_builds === 0 && !getTopology().othersCanTakeWork) {
    console.warn(
      "builds: max_concurrent_builds is 0 and no other instance can share this database: queued builds will wait for ever",
    );
  }
  for (const repository of config.repositories) void syncMirror(config, repository);
  await recoverBuilds(config);
  await removeLeftovers(config);
  const state = executor();
  if (state.slots === 0) return;
  // A run that ended freed its slot.
  state.runs.on("next", wakeClaims);
  state.stopListening = getTopology().listen("build_queued", wakeClaims);
}

/**
 * Stops taking builds and stops the stages in progress. The records are left as they are: the next start's
 * recovery marks those builds failed. Running previews are left alive, to be found again by that recovery.
 */
async function stopExecutor(): Promise<void> {
  const state = executor();
  state.stopping = true;
  state.stopListening?.();
  // abort() sends SIGTERM synchronously, before Next's own SIGTERM handling can end the process.
  for (const [buildId, active] of state.active) {
    active.controller.abort();
    if (active.runtime !== undefined) {
      void active.driver.destroy(getBuildsConfig(), buildId, { runtime: active.runtime, stages: [] }).catch(() => {});
    }
  }
  await Promise.race([Promise.all([...state.active.values()].map((active) => active.done)), sleep(5_000)]);
}

const EXECUTOR_JOB = "build executor";

/** The executor as a background job: its runs are the claims, at start, when woken, and every CLAIM_POLL_MS. */
export const buildExecutorJob: Job = {
  name: EXECUTOR_JOB,
  runsOn: "each",
  start: startExecutor,
  stop: stopExecutor,
  every: () => (executor().slots === 0 ? null : CLAIM_POLL_MS),
  firstRun: "at start",
  run: claimWhileFree,
};

/** Aborts a build the executor is working on and waits until its processes are gone. */
export async function stopActiveBuild(buildId: string): Promise<boolean> {
  const active = executor().active.get(buildId);
  if (!active) return false;
  active.controller.abort();
  await active.done;
  return true;
}

// The destroys in progress, by build: on globalThis, since route handlers and the reaper live in different bundles.
const globalForDestroys = processWide<{ buildDestroys?: Map<string, Promise<void>> }>("buildDestroys", () => ({}));

/**
 * Stops everything of a build through its driver, frees its port and removes its runtime files; the logs
 * stay. When the driver cannot do it now (RuntimeUnavailableError), the handles and the port stay recorded,
 * so that a later DELETE or the reaper can finish it. One destroy of a build at a time: a second caller (the
 * reaper retrying a DELETE in progress) shares the first's. Two at once would end each other's helpers that
 * run as the build's uid, and one could end the processes of a build given that uid after the other freed it.
 */
export function destroyRuntime(buildId: string): Promise<void> {
  const running = (globalForDestroys.buildDestroys ??= new Map());
  let destroy = running.get(buildId);
  if (!destroy) {
    destroy = destroyRuntimeNow(buildId).finally(() => running.delete(buildId));
    running.set(buildId, destroy);
  }
  return destroy;
}

async function destroyRuntimeNow(buildId: string): Promise<void> {
  const config = getBuildsConfig();
  const build = await findBuild(buildId);
  if (!build) return;
  const stages = build.stages.map((stage) => stage.handle).filter((handle): handle is string => handle != null);
  await driverOf(build).destroy(config, build.id, { runtime: build.runtimeHandle, stages });
  releasePort(build.port);
  await removeRuntimeFiles(config, build.id);
  await updateBuildRuntime(build.id, { port: null, runtimeHandle: null });
}

/** A status change failed because someone else (a cancel) moved the build, or the server is stopping. */
class Interrupted extends Error {}

class StageFailed extends Error {
  constructor(
    readonly stage: StageName,
    message: string,
  ) {
    super(message);
  }
}

/** Runs a build this instance just claimed (checking_out); a cancel that came first leaves nothing to do. */
async function runBuild(buildId: string): Promise<void> {
  const state = executor();
  const controller = new AbortController();
  let build: BuildRecord | null;
  try {
    build = await persist(buildId, controller.signal, () => findBuild(buildId));
  } catch (error) {
    if (error instanceof Interrupted) return;
    throw error;
  }
  if (build?.status !== "checking_out") return;
  let finish!: () => void;
  state.active.set(buildId, {
    controller,
    done: new Promise<void>((resolve) => (finish = resolve)),
    driver: driverOf(build),
  });
  try {
    await runStages(build, controller.signal);
  } catch (error) {
    if (state.stopping) return;
    if (error instanceof StageFailed)
      await recordEnd(buildId, controller.signal, () => failBuild(buildId, error.stage, error.message));
    else if (error instanceof Interrupted)
      await recordEnd(buildId, controller.signal, () => closeCanceledBuild(buildId));
    else {
      console.error(`builds: build ${buildId} failed unexpectedly:`, error);
      const message =
        storageFault(error) === "full"
          ? "The build service could not record the build's progress: the server's disk was full. The build was stopped."
          : `The build service failed: ${(error as Error).message}`;
      await recordEnd(buildId, controller.signal, () => failBuild(buildId, "checkout", message));
    }
  } finally {
    state.active.delete(buildId);
    finish();
  }
}

/**
 * Records how a build ended, however long the database refuses writes (a full disk, which a build's own
 * stage can cause) or is out of reach (PostgreSQL stopped): a build whose bookkeeping failed must end as
 * failed, not stay `installing` for ever with nothing working on it. Tried again every few seconds until it
 * lands, the server stops (its next start's recovery ends the build then), or a cancel (which aborts `signal`)
 * asks; each try reads the build's status again and moves it only from there, so a build that another
 * instance failed or a user canceled meanwhile stays so.
 */
async function recordEnd(buildId: string, signal: AbortSignal, end: () => Promise<void>): Promise<void> {
  for (let delay = 250; ; delay = Math.min(delay * 2, RETRY_MAX_MS)) {
    try {
      return await end();
    } catch (error) {
      if (storageFault(error) === undefined || executor().stopping) {
        console.error(`builds: could not record the end of build ${buildId}:`, error);
        return;
      }
      console.error(
        `builds: could not record the end of build ${buildId} yet (${(error as Error).message}); trying again`,
      );
    }
    await sleep(delay, signal);
  }
}

/** The longest wait between two tries of a write the database refused or could not take (recordEnd, persist). */
const RETRY_MAX_MS = 2_000;

/**
 * One of the executor's database steps, tried again while the database is out of reach (PostgreSQL stopped,
 * restarting or failing over) until it lands: the build's next steps wait behind it, so its writes land in
 * their order, while the stage's processes go on. Every status change among them is a compare-and-set from the
 * status the executor expects, so what lands late never revives a build that was failed or canceled meanwhile.
 * Gives up (Interrupted) when the server stops or a cancel aborts `signal`: what is left unwritten then, the
 * next start's recovery finds.
 */
async function persist<T>(buildId: string, signal: AbortSignal, step: () => Promise<T>): Promise<T> {
  let waiting = false;
  for (let delay = 250; ; delay = Math.min(delay * 2, RETRY_MAX_MS)) {
    try {
      const result = await step();
      if (waiting) console.warn(`builds: the database answers again; build ${buildId} goes on`);
      return result;
    } catch (error) {
      if (storageFault(error) !== "unreachable") throw error;
      if (!waiting) {
        console.error(
          `builds: build ${buildId} waits for the database, out of reach: ${(error as Error).message}; trying again`,
        );
      }
      waiting = true;
    }
    if (executor().stopping || signal.aborted) throw new Interrupted();
    await sleep(delay, signal);
  }
}

async function runStages(build: BuildRecord, signal: AbortSignal): Promise<void> {
  const config = getBuildsConfig();
  const driver = driverOf(build);
  const paths = workspacePaths(config, build.id);
  for (const folder of [paths.sources, paths.logs, paths.runtime]) fs.mkdirSync(folder, { recursive: true });
  // The claim moved the build to checking_out.
  let status: BuildStatus = "checking_out";
  const advance = async (to: BuildStatus, data: Parameters<typeof moveBuild>[3] = {}) => {
    if (executor().stopping) throw new Interrupted();
    // A move whose answer the connection lost may have landed: the next try then finds the build moved already.
    const moved = await persist(
      build.id,
      signal,
      async () => (await moveBuild(build.id, status, to, data)) || (await findBuild(build.id))?.status === to,
    );
    if (!moved) throw new Interrupted();
    status = to;
  };
  const write = <T>(step: () => Promise<T>) => persist(build.id, signal, step);

  buildEvents().emit("dequeued", build.id);
  const repositories = build.repositories.map((repository) => {
    const configured = config.repositories.find((candidate) => candidate.alias === repository.alias);
    if (!configured) throw new StageFailed("checkout", `The repository "${repository.alias}" is no longer configured.`);
    return { ...repository, configured, checkout: path.join(paths.sources, repository.alias) };
  });
  const port = await leasePort(build.id, config.ports, config.preview_address);
  if (port === null) {
    throw new StageFailed(
      "checkout",
      `No free port in ${config.ports.start}-${config.ports.end}: too many runtimes are alive.`,
    );
  }
  await write(() => updateBuildRuntime(build.id, { port }));
  const context: BuildContext = {
    buildId: build.id,
    port,
    modules: build.modules === "" ? [] : build.modules.split(","),
    config,
    paths,
    repositories: repositories.map((r) => ({
      alias: r.alias,
      checkout: r.checkout,
      modulesPath: r.configured.modules_path,
      commitSha: r.commitSha,
    })),
    installCache: build.installCache,
  };
  const timeoutMs = config.stage_timeout_seconds * 1000;

  for (const stage of driver.stages) {
    if (stage.status !== status) await advance(stage.status);
    await runStage(build.id, stage.name, status, config, signal, (logPath, recordHandle) => {
      // Checkout is the same for every driver: git, on the host, from the mirrors.
      if (stage.name === "checkout")
        return checkOut(config, build.id, repositories, paths.sources, { logPath, signal, timeoutMs, recordHandle });
      return driver.runStage(stage.name, context, {
        logPath,
        signal,
        timeoutMs,
        recordHandle,
        runtimeHandle: () => executor().active.get(build.id)?.runtime ?? null,
        recordRuntime: async (handle) => {
          const active = executor().active.get(build.id);
          if (active) active.runtime = handle;
          await write(() => updateBuildRuntime(build.id, { runtimeHandle: handle }));
        },
      });
    });
  }
  // The time to live starts now: queue and stage time do not eat the preview's life.
  const now = new Date();
  await advance("running", {
    finishedAt: now,
    expiresAt: new Date(now.getTime() + build.ttlSeconds * 1000),
    awakeSince: now,
  });
  buildEvents().emit("running", build.id);
}

/**
 * Clones a repository from its mirror and checks out the build's commit, in one process: every process the
 * server starts costs it a fork of its whole memory. The values reach git as arguments, never in the script.
 * --no-hardlinks: the checkout is handed to the build's user, and a file it shared with the mirror (git
 * hard-links objects of a local clone) would hand that user the mirror's file too.
 */
const CHECKOUT_SCRIPT =
  'git clone --quiet --no-checkout --no-hardlinks -- "$1" "$2" && exec git -C "$2" -c advice.detachedHead=false checkout --quiet --detach "$3"';

/** Clones each repository from its mirror and checks out the build's commit, into the build's sources. */
async function checkOut(
  config: BuildsConfig,
  buildId: string,
  repositories: { alias: string; ref: string; commitSha: string; checkout: string }[],
  sources: string,
  control: {
    logPath: string;
    signal: AbortSignal;
    timeoutMs: number;
    recordHandle: (handle: string) => Promise<unknown>;
  },
): Promise<StageResult> {
  const deadline = Date.now() + control.timeoutMs;
  // BUILD_ID marks the processes as the build's (lib/builds/runtime/process-handles.ts).
  const env = { ...buildProcessBaseEnv(), BUILD_ID: buildId, GIT_TERMINAL_PROMPT: "0" };
  for (const repository of repositories) {
    fs.appendFileSync(control.logPath, `$ checkout ${repository.alias} ${repository.ref} at ${repository.commitSha}\n`);
    const outcome = await runToCompletion(
      {
        file: "/bin/sh",
        args: [
          "-c",
          CHECKOUT_SCRIPT,
          "checkout",
          mirrorPath(config, repository.alias),
          repository.checkout,
          repository.commitSha,
        ],
        cwd: sources,
        env,
        logPath: control.logPath,
      },
      {
        signal: control.signal,
        timeoutMs: Math.max(1, deadline - Date.now()),
        onStarted: (pgid) => control.recordHandle(encodeProcessHandle(pgid)),
      },
    );
    if (outcome.kind !== "exited" || outcome.code !== 0) {
      return describeOutcome(outcome, `The checkout of ${repository.alias}`, timeoutMessage(config, "checkout"));
    }
  }
  return { status: "succeeded", exitCode: 0 };
}

/**
 * Records a stage around its work: running, then its result, each only while the build still has the status
 * of the stage (`during`). A failure or a cancel ends the build's run.
 */
async function runStage(
  buildId: string,
  name: StageName,
  during: BuildStatus,
  config: BuildsConfig,
  signal: AbortSignal,
  work: (logPath: string, recordHandle: (handle: string) => Promise<unknown>) => Promise<StageResult>,
): Promise<void> {
  // API requests first: a stage start costs the event loop several milliseconds (a fork of the whole server,
  // database writes), and a build that waits a quarter of a second is not the worse for it, while a burst of
  // requests would wait behind every stage start. Bounded, so steady traffic only slows builds a little.
  await whenNoRequestsInFlight(STAGE_START_GIVES_WAY_MS);
  const logFile = `${name}.log`;
  const logPath = path.join(workspacePaths(config, buildId).logs, logFile);
  fs.writeFileSync(logPath, "", { flag: "a" });
  // The log checks read what this run of the stage wrote: a wake's start appends to the log of the first.
  const checkFrom = fs.statSync(logPath).size;
  const write = (data: Parameters<typeof updateStage>[2]) =>
    persist(buildId, signal, () => updateStage(buildId, name, data, during));
  const startedAt = new Date();
  if (!(await write({ status: "running", startedAt, logFile }))) throw new Interrupted();
  // The handle is what a destroy needs to find the stage's processes: a cancel meanwhile stops them itself.
  let result = await work(logPath, (handle) =>
    persist(buildId, signal, () => updateStage(buildId, name, { handle })).catch((error) => {
      if (!(error instanceof Interrupted)) throw error;
    }),
  );
  if (executor().stopping) throw new Interrupted();
  const found = await checkLogFile(logPath, checkFrom, compileLogCheckRules(config.log_checks));
  await persist(buildId, signal, () => recordLogChecks(config, buildId, name, found));
  if (result.status === "succeeded" && found.errors > 0 && config.log_checks.fail_on_errors) {
    const first = found.entries[0]?.split("\n")[0] ?? "";
    result = {
      status: "failed",
      exitCode: result.exitCode,
      message: `The ${name} log has ${found.errors} error${found.errors === 1 ? "" : "s"} (log_checks.fail_on_errors): ${first.slice(0, 300)}`,
    };
  }
  const finishedAt = new Date();
  instanceMetrics().stageDuration.observe(
    { stage: name, status: result.status },
    (finishedAt.getTime() - startedAt.getTime()) / 1000,
  );
  const recorded = await write({
    status: result.status,
    finishedAt,
    exitCode: "exitCode" in result ? result.exitCode : null,
    handle: null,
    ...(result.status === "succeeded" && result.cached ? { cached: true } : {}),
  });
  if (!recorded) throw new Interrupted();
  if (result.status === "canceled") throw new Interrupted();
  if (result.status === "failed") throw new StageFailed(name, result.message);
}

async function failBuild(buildId: string, stage: StageName | "recovery", message: string): Promise<void> {
  const now = new Date();
  for (;;) {
    const build = await findBuild(buildId);
    if (!build) return;
    const status = build.status as BuildStatus;
    if (status === "canceled") return closeCanceledBuild(buildId);
    // Failed by an earlier try whose last writes the storage refused (recordEnd): finish closing its stages.
    if (status === "failed") return void (await closeOpenStages(buildId, "failed", "skipped", now));
    if (!IN_PROGRESS_STATUSES.includes(status) && status !== "queued" && status !== "running") return;
    const moved = await moveBuild(buildId, status, "failed", {
      failureStage: stage,
      failureMessage: message,
      finishedAt: now,
    });
    if (moved) break;
  }
  // The stages that never started are skipped from now on: the dashboard stops asking once the build has
  // failed, and must not be left showing them pending while the runtime is destroyed.
  await closePendingStages(buildId, "skipped");
  // Destroy first: it stops the work that the open stages still record.
  await destroyOrLeaveForLater(buildId);
  await closeOpenStages(buildId, "failed", "skipped", now);
}

/** The executor's part of a cancel (the status was set by the cancel): close the stages, destroy the runtime. */
async function closeCanceledBuild(buildId: string): Promise<void> {
  await destroyOrLeaveForLater(buildId);
  await closeOpenStages(buildId, "canceled", "canceled", new Date());
}

/** A destroy the driver cannot do now is left recorded (port, runtime handle): the reaper tries it again. */
async function destroyOrLeaveForLater(buildId: string): Promise<void> {
  try {
    await destroyRuntime(buildId);
  } catch (error) {
    console.error(`builds: could not destroy the runtime of build ${buildId} yet: ${(error as Error).message}`);
  }
}

/**
 * Running builds whose runtime exited on its own (crashed, or was killed from outside) are failed at stage
 * `start`, so their status says so and their port is freed, instead of showing a dead preview as running.
 * A runtime whose driver cannot tell (a Docker daemon that does not answer) is left running.
 */
export async function failBuildsWithDeadRuntimes(): Promise<void> {
  const config = getBuildsConfig();
  for (const build of await listBuildsWithStatus(["running"], buildsOfThisHost())) {
    // A build without a runtime (no `start` command: install and test only) has none that could have exited.
    if (build.runtimeHandle === null) continue;
    if ((await driverOf(build).runtimeLiveness(config, build.id, build.runtimeHandle)) !== "dead") continue;
    await failBuild(build.id, "start", "The runtime exited while the build was running; see the start log.");
  }
}

/**
 * Builds that are over but whose runtime could not be destroyed when they ended (their port is still
 * recorded), and DELETEs that could not finish: the reaper tries again.
 */
export async function retryUnfinishedDestroys(): Promise<void> {
  const active = executor().active;
  for (const build of await listBuildsAwaitingDestroy(buildsOfThisHost())) {
    if (active.has(build.id)) continue;
    await destroyRuntime(build.id);
    if (build.status === "destroying") await moveBuild(build.id, "destroying", "destroyed");
  }
}

/**
 * What a previous process left: builds in progress are failed (stage `recovery`) and their work stopped;
 * running builds keep running if their runtime is alive, or if their driver cannot tell (their port is
 * held again); half-destroyed builds are finished off.
 */
async function recoverBuilds(config: BuildsConfig): Promise<void> {
  const recovered = await listBuildsWithStatus(
    [...IN_PROGRESS_STATUSES, "running", "sleeping", "destroying"],
    buildsOfThisHost(),
  );
  for (const build of recovered) {
    const status = build.status as BuildStatus;
    // A sleeping build keeps its port for its wake, and its stopped runtime for the driver to start again.
    if (status === "sleeping") {
      if (build.port != null) holdPort(build.id, build.port);
      continue;
    }
    if (
      status === "running" &&
      (await driverOf(build).runtimeLiveness(config, build.id, build.runtimeHandle)) !== "dead"
    ) {
      if (build.port != null) holdPort(build.id, build.port);
      continue;
    }
    if (status === "destroying") {
      try {
        await destroyRuntime(build.id);
        await moveBuild(build.id, "destroying", "destroyed");
      } catch (error) {
        console.error(`builds: could not finish destroying build ${build.id} yet: ${(error as Error).message}`);
      }
      continue;
    }
    const message =
      status === "running"
        ? "The runtime was no longer alive when the server restarted."
        : `The server stopped while the build was ${status}; it was not resumed.`;
    await failBuild(build.id, "recovery", message);
  }
}

/**
 * After the recovery, each driver removes what it finds of builds that are no longer active (a crash
 * between starting a container and recording it). This host's running builds are the only ones active here
 * now; the live builds of other hosts are kept too, in case they share this host's Docker engine.
 */
async function removeLeftovers(config: BuildsConfig): Promise<void> {
  const here = buildsOfThisHost();
  const live = await listBuildsWithStatus([...IN_PROGRESS_STATUSES, "running", "sleeping", "destroying"]);
  const keep = new Set(
    live
      .filter((build) => build.status === "running" || build.status === "sleeping" || !isOfThisHost(build, here))
      .map((build) => build.id),
  );
  const driver = getDriver(config.runtime.driver);
  const readiness = await driver.readiness(config);
  if (!readiness.ready) {
    console.error(
      `builds: the ${driver.name} runtime is not ready, leftovers of earlier builds stay for now: ${readiness.reason}`,
    );
    return;
  }
  try {
    await driver.removeLeftovers(config, keep);
  } catch (error) {
    console.error(`builds: the ${driver.name} driver could not look for leftovers: ${(error as Error).message}`);
  }
}
