import fs from "node:fs";
import path from "node:path";
import PQueue from "p-queue";
import { getBuildsConfig, type BuildsConfig } from "./config";
import { getDriver, type RuntimeDriver } from "./driver";
import { buildEvents } from "./events";
import { mirrorPath, syncMirror } from "./mirrors";
import { holdPort, leasePort, releasePort } from "./ports";
import { runToCompletion, sleep, type RunOutcome } from "./processes";
import {
  closeOpenStages,
  findBuild,
  listBuildsWithStatus,
  moveBuild,
  updateBuildRuntime,
  updateStage,
  type BuildRecord,
} from "./repository";
import { IN_PROGRESS_STATUSES, type BuildStatus, type StageName } from "./status";
import { removeRuntimeFiles, workspacePaths } from "./workspace";
import { checkStageUser, handOverWorkspace, stageUser } from "./run-as";
import { getEnv } from "../env";

/**
 * The executor: a p-queue bounded by max_concurrent_builds runs each build's stages in order. Queued builds
 * live in the database, so a restart loses none (`startExecutor` re-queues them). Its state is kept on
 * globalThis: Next bundles instrumentation.ts (which starts it) apart from the route handlers (which enqueue
 * and cancel), and both must reach the same queue and the same table of running builds.
 */
interface ActiveBuild {
  controller: AbortController;
  done: Promise<void>;
  /** The runtime's handle once the start stage spawned it, so a shutdown can stop a preview not yet running. */
  runtime?: number;
}

interface ExecutorState {
  queue: PQueue;
  active: Map<string, ActiveBuild>;
  stopping: boolean;
}

const globalForExecutor = globalThis as unknown as { buildExecutor?: ExecutorState };

function executor(): ExecutorState {
  globalForExecutor.buildExecutor ??= {
    queue: new PQueue({ concurrency: getBuildsConfig().max_concurrent_builds }),
    active: new Map(),
    stopping: false,
  };
  return globalForExecutor.buildExecutor;
}

function driver(config: BuildsConfig): RuntimeDriver {
  return getDriver(config.runtime.driver);
}

export function enqueueBuild(buildId: string): void {
  void executor().queue.add(() => runBuild(buildId));
}

/**
 * Starts the executor: syncs the mirrors in the background, recovers what a previous process left behind,
 * then queues the builds that were waiting.
 */
export async function startExecutor(): Promise<void> {
  const config = getBuildsConfig();
  fs.mkdirSync(config.builds_root, { recursive: true });
  for (const warning of checkStageUser(config, getEnv().DATA_DIR)) console.warn(`builds: ${warning}`);
  for (const repository of config.repositories) void syncMirror(config, repository);
  await recoverBuilds(config);
  for (const build of await listBuildsWithStatus(["queued"])) enqueueBuild(build.id);
}

/**
 * Stops taking builds and stops the stages in progress. The records are left as they are: the next start's
 * recovery marks those builds failed. Running previews are left alive, to be found again by that recovery.
 */
export async function stopExecutor(): Promise<void> {
  const state = executor();
  state.stopping = true;
  state.queue.pause();
  state.queue.clear();
  // abort() sends SIGTERM synchronously, before Next's own SIGTERM handling can end the process.
  for (const active of state.active.values()) {
    active.controller.abort();
    if (active.runtime !== undefined) void driver(getBuildsConfig()).stop(active.runtime);
  }
  await Promise.race([Promise.all([...state.active.values()].map((active) => active.done)), sleep(5_000)]);
}

/** Aborts a build the executor is working on and waits until its processes are gone. */
export async function stopActiveBuild(buildId: string): Promise<boolean> {
  const active = executor().active.get(buildId);
  if (!active) return false;
  active.controller.abort();
  await active.done;
  return true;
}

/** Stops a build's processes, frees its port and removes its runtime files; the logs stay. */
export async function destroyRuntime(buildId: string): Promise<void> {
  const config = getBuildsConfig();
  const build = await findBuild(buildId);
  if (!build) return;
  const handles = [build.runtimePgid, ...build.stages.map((stage) => stage.pgid)].filter((pgid): pgid is number => pgid != null);
  await Promise.all(handles.map((handle) => driver(config).stop(handle)));
  releasePort(build.port);
  removeRuntimeFiles(config, build.id);
  await updateBuildRuntime(build.id, { port: null, runtimePgid: null });
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

async function runBuild(buildId: string): Promise<void> {
  const state = executor();
  if (state.stopping) return;
  const build = await findBuild(buildId);
  if (!build || build.status !== "queued") return;
  const controller = new AbortController();
  let finish!: () => void;
  state.active.set(buildId, { controller, done: new Promise<void>((resolve) => (finish = resolve)) });
  try {
    await runStages(build, controller.signal);
  } catch (error) {
    if (state.stopping) return;
    if (error instanceof StageFailed) await failBuild(buildId, error.stage, error.message);
    else if (error instanceof Interrupted) await closeCanceledBuild(buildId);
    else {
      console.error(`builds: build ${buildId} failed unexpectedly:`, error);
      await failBuild(buildId, "checkout", `The build service failed: ${(error as Error).message}`);
    }
  } finally {
    state.active.delete(buildId);
    finish();
  }
}

async function runStages(build: BuildRecord, signal: AbortSignal): Promise<void> {
  const config = getBuildsConfig();
  const paths = workspacePaths(config, build.id);
  for (const folder of [paths.sources, paths.logs, paths.runtime]) fs.mkdirSync(folder, { recursive: true });
  let status: BuildStatus = "queued";
  const advance = async (to: BuildStatus, data: Parameters<typeof moveBuild>[3] = {}) => {
    if (executor().stopping || !(await moveBuild(build.id, status, to, data))) throw new Interrupted();
    status = to;
  };

  await advance("checking_out", { startedAt: new Date() });
  buildEvents().emit("dequeued", build.id);
  const repositories = build.repositories.map((repository) => {
    const configured = config.repositories.find((candidate) => candidate.alias === repository.alias);
    if (!configured) throw new StageFailed("checkout", `The repository "${repository.alias}" is no longer configured.`);
    return { ...repository, configured, checkout: path.join(paths.sources, repository.alias) };
  });
  const port = await leasePort(build.id, config.ports);
  if (port === null) {
    throw new StageFailed("checkout", `No free port in ${config.ports.start}-${config.ports.end}: too many runtimes are alive.`);
  }
  await updateBuildRuntime(build.id, { port });
  const env = {
    PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
    // The server's home is not the stage user's to write in.
    HOME: stageUser(config) ? paths.runtime : (process.env.HOME ?? paths.runtime),
    LANG: process.env.LANG ?? "C.UTF-8",
    BUILD_ID: build.id,
    PORT: String(port),
    MODULES: build.modules,
    ADDONS_PATH: repositories.map((r) => path.join(r.checkout, r.configured.modules_path)).join(":"),
    WORKSPACE: paths.root,
  };
  // The commands of the configuration are relative to the first repository of the build, in ADDONS_PATH order.
  const cwd = repositories[0].checkout;
  const timeoutMs = config.stage_timeout_seconds * 1000;
  const timeoutMessage = (stage: StageName) =>
    `The ${stage} stage ran past stage_timeout_seconds (${config.stage_timeout_seconds} s) and was killed.`;

  await runStage(build.id, "checkout", config, async (logPath, onStarted) => {
    const deadline = Date.now() + timeoutMs;
    for (const repository of repositories) {
      fs.appendFileSync(logPath, `$ checkout ${repository.alias} ${repository.ref} at ${repository.commitSha}\n`);
      for (const args of [
        ["clone", "--quiet", "--no-checkout", "--", mirrorPath(config, repository.alias), repository.checkout],
        ["-C", repository.checkout, "-c", "advice.detachedHead=false", "checkout", "--quiet", "--detach", repository.commitSha],
      ]) {
        const outcome = await runToCompletion(
          { file: "git", args, cwd: paths.sources, env: { ...env, GIT_TERMINAL_PROMPT: "0" }, logPath },
          { signal, timeoutMs: Math.max(1, deadline - Date.now()), onStarted },
        );
        if (outcome.kind !== "exited" || outcome.code !== 0) {
          return describeOutcome(outcome, `git ${args.includes("clone") ? "clone" : "checkout"} of ${repository.alias}`, timeoutMessage("checkout"));
        }
      }
    }
    return { status: "succeeded", exitCode: 0 };
  });
  await handOverWorkspace(config, [paths.sources, paths.runtime]);

  for (const [stage, buildStatus] of [["install", "installing"], ["test", "testing"]] as const) {
    await advance(buildStatus);
    const command = config.runtime[stage];
    await runStage(build.id, stage, config, async (logPath, onStarted) => {
      if (!command) return { status: "skipped" };
      const outcome = await driver(config).runStage({ command, cwd, env, logPath }, { signal, timeoutMs, onStarted });
      return describeOutcome(outcome, `The ${stage} command`, timeoutMessage(stage));
    });
  }

  await advance("starting");
  const start = config.runtime.start;
  let runtime: number | null = null;
  await runStage(build.id, "start", config, async (logPath) => {
    if (!start) return { status: "skipped" };
    runtime = driver(config).startRuntime({ command: start, cwd, env, logPath });
    const active = executor().active.get(build.id);
    if (active) active.runtime = runtime;
    await updateBuildRuntime(build.id, { runtimePgid: runtime });
    return { status: "succeeded", exitCode: null };
  });
  await runStage(build.id, "healthcheck", config, async (logPath) => {
    if (runtime === null) return { status: "skipped" };
    return waitUntilHealthy(config, driver(config), runtime, port, logPath, signal);
  });
  // The time to live starts now: queue and stage time do not eat the preview's life.
  const now = new Date();
  await advance("running", { finishedAt: now, expiresAt: new Date(now.getTime() + build.ttlSeconds * 1000) });
  buildEvents().emit("running", build.id);
}

type StageResult =
  | { status: "succeeded"; exitCode: number | null }
  | { status: "skipped" }
  | { status: "canceled" }
  | { status: "failed"; exitCode: number | null; message: string };

/** Records a stage around its work: running, then its result. A failure or a cancel ends the build's run. */
async function runStage(
  buildId: string,
  name: StageName,
  config: BuildsConfig,
  work: (logPath: string, onStarted: (pgid: number) => Promise<unknown>) => Promise<StageResult>,
): Promise<void> {
  const logFile = `${name}.log`;
  const logPath = path.join(workspacePaths(config, buildId).logs, logFile);
  fs.writeFileSync(logPath, "", { flag: "a" });
  await updateStage(buildId, name, { status: "running", startedAt: new Date(), logFile });
  const result = await work(logPath, (pgid) => updateStage(buildId, name, { pgid }));
  if (executor().stopping) throw new Interrupted();
  await updateStage(buildId, name, {
    status: result.status,
    finishedAt: new Date(),
    exitCode: "exitCode" in result ? result.exitCode : null,
    pgid: null,
  });
  if (result.status === "canceled") throw new Interrupted();
  if (result.status === "failed") throw new StageFailed(name, result.message);
}

function describeOutcome(outcome: RunOutcome, what: string, timeoutMessage: string): StageResult {
  switch (outcome.kind) {
    case "aborted":
      return { status: "canceled" };
    case "timed_out":
      return { status: "failed", exitCode: null, message: timeoutMessage };
    case "exited":
      if (outcome.code === 0) return { status: "succeeded", exitCode: 0 };
      return {
        status: "failed",
        exitCode: outcome.code,
        message:
          outcome.code === null
            ? `${what} was killed by ${outcome.signal}.`
            : `${what} exited with code ${outcome.code}; see its log.`,
      };
  }
}

/** Polls the preview until it answers below 500, within healthcheck.timeout_seconds. */
async function waitUntilHealthy(
  config: BuildsConfig,
  runtimeDriver: RuntimeDriver,
  runtime: number,
  port: number,
  logPath: string,
  signal: AbortSignal,
): Promise<StageResult> {
  const url = `http://127.0.0.1:${port}${config.runtime.healthcheck.path}`;
  const deadline = Date.now() + config.runtime.healthcheck.timeout_seconds * 1000;
  let lastProblem = "";
  const log = (line: string) => fs.appendFileSync(logPath, `${new Date().toISOString()} ${line}\n`);
  log(`GET ${url} until it answers below 500, for up to ${config.runtime.healthcheck.timeout_seconds} s`);
  while (!signal.aborted) {
    if (!runtimeDriver.isAlive(runtime)) {
      log("the runtime exited");
      return { status: "failed", exitCode: null, message: "The runtime exited before answering its healthcheck; see the start log." };
    }
    let problem: string;
    try {
      const response = await fetch(url, { signal: AbortSignal.any([signal, AbortSignal.timeout(2_000)]), redirect: "manual" });
      await response.body?.cancel();
      if (response.status < 500) {
        log(`answered ${response.status}`);
        return { status: "succeeded", exitCode: null };
      }
      problem = `answered ${response.status}`;
    } catch (error) {
      problem = `no answer (${((error as Error).cause as Error | undefined)?.message ?? (error as Error).message})`;
    }
    if (problem !== lastProblem) log(problem);
    lastProblem = problem;
    if (Date.now() >= deadline) {
      return {
        status: "failed",
        exitCode: null,
        message: `The preview did not answer below 500 within ${config.runtime.healthcheck.timeout_seconds} s (last: ${problem}).`,
      };
    }
    await sleep(250, signal);
  }
  return { status: "canceled" };
}

async function failBuild(buildId: string, stage: StageName | "recovery", message: string): Promise<void> {
  const now = new Date();
  for (;;) {
    const build = await findBuild(buildId);
    if (!build) return;
    const status = build.status as BuildStatus;
    if (status === "canceled") return closeCanceledBuild(buildId);
    if (!IN_PROGRESS_STATUSES.includes(status) && status !== "queued" && status !== "running") return;
    const moved = await moveBuild(buildId, status, "failed", { failureStage: stage, failureMessage: message, finishedAt: now });
    if (moved) break;
  }
  // Destroy first: it stops the process groups that the open stages still record.
  await destroyRuntime(buildId);
  await closeOpenStages(buildId, "failed", "skipped", now);
}

/** The executor's part of a cancel (the status was set by the cancel): close the stages, destroy the runtime. */
async function closeCanceledBuild(buildId: string): Promise<void> {
  await destroyRuntime(buildId);
  await closeOpenStages(buildId, "canceled", "canceled", new Date());
}

/**
 * Running builds whose runtime exited on its own (crashed, or was killed from outside) are failed at stage
 * `start`, so their status says so and their port is freed, instead of showing a dead preview as running.
 */
export async function failBuildsWithDeadRuntimes(): Promise<void> {
  const config = getBuildsConfig();
  for (const build of await listBuildsWithStatus(["running"])) {
    if (build.runtimePgid == null || driver(config).isAlive(build.runtimePgid)) continue;
    await failBuild(build.id, "start", "The runtime exited while the build was running; see the start log.");
  }
}

/**
 * What a previous process left: builds in progress are failed (stage `recovery`) and their processes
 * killed; running builds keep running if their runtime is alive (their port is held again); half-destroyed
 * builds are finished off.
 */
async function recoverBuilds(config: BuildsConfig): Promise<void> {
  const recovered = await listBuildsWithStatus([...IN_PROGRESS_STATUSES, "running", "destroying"]);
  for (const build of recovered) {
    const status = build.status as BuildStatus;
    if (status === "running" && build.runtimePgid != null && driver(config).isAlive(build.runtimePgid)) {
      if (build.port != null) holdPort(build.id, build.port);
      continue;
    }
    if (status === "destroying") {
      await destroyRuntime(build.id);
      await moveBuild(build.id, "destroying", "destroyed");
      continue;
    }
    const message =
      status === "running"
        ? "The runtime was no longer alive when the server restarted."
        : `The server stopped while the build was ${status}; it was not resumed.`;
    await failBuild(build.id, "recovery", message);
  }
}
