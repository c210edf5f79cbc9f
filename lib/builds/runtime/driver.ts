import type { BuildsConfig } from "../config";
import type { BuildStatus, StageName } from "../status";

/**
 * The seam between the executor and what runs a build's stages and runtime (lib/builds/runtime/drivers/*). The
 * executor addresses a driver by build id and stage name only. What a driver needs to find its work again
 * after a restart (a process group and its start time, a Compose project) is its own business: it hands the
 * executor opaque text to store (`recordHandle`, `recordRuntime`) and gets it back on `runtimeLiveness` and
 * `destroy`. A new driver is a new file under lib/builds/runtime/drivers/ and one line in its index.
 */
export interface StageDefinition {
  name: StageName;
  /** The build's status while this stage runs. */
  status: BuildStatus;
}

/** What a driver knows of the build whose stage it runs: only validated values. */
export interface BuildContext {
  buildId: string;
  port: number;
  modules: string[];
  config: BuildsConfig;
  paths: WorkspacePaths;
  /** The checkouts in ADDONS_PATH order (priority, then alias); commitSha where the stage may need it. */
  repositories: { alias: string; checkout: string; modulesPath: string; commitSha?: string }[];
  /** False when the build asked for a fresh install: the install cache is not restored from (default true). */
  installCache?: boolean;
}

export interface StageControl {
  /** The stage's log: everything the stage's work prints goes here. */
  logPath: string;
  signal: AbortSignal;
  timeoutMs: number;
  /** Stores what stops this stage's work after a restart; cleared when the stage ends. */
  recordHandle(handle: string): Promise<unknown>;
  /** The runtime handle recorded so far, or null. */
  runtimeHandle(): string | null;
  /** Stores what finds the build's runtime after a restart (the stage that starts the runtime calls it). */
  recordRuntime(handle: string): Promise<unknown>;
}

/** A build's folders under builds_root (made and removed by ./workspace.ts). */
export interface WorkspacePaths {
  root: string;
  sources: string;
  logs: string;
  runtime: string;
}

/** How a process a stage ran came to its end (./processes.ts runs them). */
export type RunOutcome =
  | { kind: "exited"; code: number | null; signal: NodeJS.Signals | null }
  | { kind: "aborted" }
  | { kind: "timed_out" };

export type StageResult =
  // cached: the install stage restored an entry of the install cache instead of installing (lib/builds/install-cache).
  | { status: "succeeded"; exitCode: number | null; cached?: boolean }
  | { status: "skipped" }
  | { status: "canceled" }
  | { status: "failed"; exitCode: number | null; message: string };

/** `unknown` when the driver cannot tell (its engine does not answer): nothing is decided on it. */
export type Liveness = "alive" | "dead" | "unknown";

export type Readiness = { ready: true } | { ready: false; reason: string };

/** Thrown when a driver cannot reach what runs its builds (a Docker daemon that does not answer). */
export class RuntimeUnavailableError extends Error {}

export interface RuntimeDriver {
  readonly name: string;
  /** The build's stages in order. The first is `checkout`, which the executor runs for every driver. */
  readonly stages: readonly StageDefinition[];
  /** Whether builds can run now; checked before a build is accepted and shown by /app-config. */
  readiness(config: BuildsConfig): Promise<Readiness>;
  /** Runs one stage (any but checkout) to its end. Aborting `signal` stops it; it then answers `canceled`. */
  runStage(stage: StageName, build: BuildContext, control: StageControl): Promise<StageResult>;
  /** Whether the runtime recorded by `runtimeHandle` is alive. */
  runtimeLiveness(config: BuildsConfig, buildId: string, runtimeHandle: string | null): Promise<Liveness>;
  /**
   * Stops everything of a build (its stages' work and its runtime) and removes it; resolves once nothing of
   * it is left. Throws RuntimeUnavailableError when that cannot be done now.
   */
  destroy(config: BuildsConfig, buildId: string, handles: { runtime: string | null; stages: string[] }): Promise<void>;
  /**
   * Stops the runtime and keeps everything it needs to start again (Compose: `stop`, not `down`; process: the
   * processes end, the workspace stays). A wake runs the `start` and `healthcheck` stages again. Throws
   * RuntimeUnavailableError when that cannot be done now.
   */
  sleep(config: BuildsConfig, buildId: string, runtimeHandle: string | null): Promise<void>;
  /** At start, after the executor's recovery: removes what the driver finds of builds not in `keep`. */
  removeLeftovers(config: BuildsConfig, keep: ReadonlySet<string>): Promise<void>;
}

/** A stage's result from how its process ended. */
export function describeOutcome(outcome: RunOutcome, what: string, timeoutMessage: string): StageResult {
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

export function timeoutMessage(config: BuildsConfig, stage: StageName): string {
  return `The ${stage} stage ran past stage_timeout_seconds (${config.stage_timeout_seconds} s) and was killed.`;
}
