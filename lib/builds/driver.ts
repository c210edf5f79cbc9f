import { getBuildsConfig } from "./config";
import { stageUser } from "./run-as";
import { isProcessGroupAlive, runToCompletion, spawnLogged, stopProcessGroup, type RunOutcome } from "./processes";

/**
 * How a build's commands and runtime are run. `process` (the only driver for now) runs them as local
 * process groups; a docker compose or kubernetes driver would implement the same seam, with the runtime
 * handle naming a compose project or a deployment instead of a process group.
 */
export interface StageCommand {
  /** A command from the configuration only; request values reach it through `env`. */
  command: string;
  cwd: string;
  env: Record<string, string>;
  logPath: string;
}

export interface RuntimeDriver {
  /** Runs a stage (install, test) to its end; `onStarted` records the handle so a restart can stop it. */
  runStage(
    stage: StageCommand,
    control: { signal: AbortSignal; timeoutMs: number; onStarted: (handle: number) => Promise<unknown> },
  ): Promise<RunOutcome>;
  /** Starts the long-running runtime and returns its handle. */
  startRuntime(stage: StageCommand): number;
  isAlive(handle: number): boolean;
  /** Stops a stage or a runtime by its handle; resolves once nothing of it is left. */
  stop(handle: number): Promise<void>;
}

const SHELL = "/bin/sh";

export const processDriver: RuntimeDriver = {
  runStage(stage, control) {
    const user = stageUser(getBuildsConfig());
    return runToCompletion({ file: SHELL, args: ["-c", stage.command], cwd: stage.cwd, env: stage.env, logPath: stage.logPath, user }, control);
  },
  startRuntime(stage) {
    const user = stageUser(getBuildsConfig());
    return spawnLogged({ file: SHELL, args: ["-c", stage.command], cwd: stage.cwd, env: stage.env, logPath: stage.logPath, user }).pgid;
  },
  isAlive: isProcessGroupAlive,
  stop: (handle) => stopProcessGroup(handle),
};

export function getDriver(name: "process"): RuntimeDriver {
  switch (name) {
    case "process":
      return processDriver;
  }
}
