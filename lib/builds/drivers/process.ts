import path from "node:path";
import { buildProcessBaseEnv } from "../../env";
import { describeOutcome, timeoutMessage, type BuildContext, type RuntimeDriver } from "../driver";
import { waitUntilHealthy } from "../healthcheck";
import { encodeProcessHandle, isBuildProcessGroupAlive, stopBuildProcessGroup } from "../process-handles";
import { runToCompletion, spawnLogged } from "../processes";
import { handOverWorkspace, stageUser } from "../run-as";

/**
 * The `process` driver: the configured shell commands run on the host, as the server's user, each in its own
 * process group, in the build's first repository checkout, as runtime.run_as when the server is root
 * (lib/builds/run-as.ts). No isolation: for trusted repositories and hosts without Docker. Its handles are
 * process handles (lib/builds/process-handles.ts).
 */
const SHELL = "/bin/sh";

/** The environment of the stage commands: the build's values, validated, and nothing from a request besides. */
function stageEnv(build: BuildContext): Record<string, string> {
  const base = buildProcessBaseEnv();
  // The server's home is not the stage user's to write in.
  if (stageUser(build.config) || base.HOME === undefined) base.HOME = build.paths.runtime;
  return {
    ...base,
    BUILD_ID: build.buildId,
    PORT: String(build.port),
    MODULES: build.modules.join(","),
    ADDONS_PATH: build.repositories.map((r) => path.join(r.checkout, r.modulesPath)).join(":"),
    WORKSPACE: build.paths.root,
  };
}

export const processDriver: RuntimeDriver = {
  name: "process",
  stages: [
    { name: "checkout", status: "checking_out" },
    { name: "install", status: "installing" },
    { name: "test", status: "testing" },
    { name: "start", status: "starting" },
    { name: "healthcheck", status: "starting" },
  ],

  async readiness() {
    return { ready: true };
  },

  async runStage(stage, build, control) {
    const { config } = build;
    // The commands of the configuration are relative to the first repository of the build, in ADDONS_PATH order.
    const spawnOptions = (command: string) => ({
      file: SHELL,
      args: ["-c", command],
      cwd: build.repositories[0].checkout,
      env: stageEnv(build),
      logPath: control.logPath,
      user: stageUser(config),
    });
    switch (stage) {
      case "install":
      case "test": {
        // The checkout is the server's work; from install on, the sources and runtime are the stage user's.
        if (stage === "install") await handOverWorkspace(config, [build.paths.sources, build.paths.runtime], control.logPath);
        const command = config.runtime[stage];
        if (!command) return { status: "skipped" };
        const outcome = await runToCompletion(spawnOptions(command), {
          signal: control.signal,
          timeoutMs: control.timeoutMs,
          onStarted: (pgid) => control.recordHandle(encodeProcessHandle(pgid)),
        });
        return describeOutcome(outcome, `The ${stage} command`, timeoutMessage(config, stage));
      }
      case "start": {
        if (!config.runtime.start) return { status: "skipped" };
        const runtime = await spawnLogged(spawnOptions(config.runtime.start));
        await control.recordRuntime(encodeProcessHandle(runtime.pgid));
        return { status: "succeeded", exitCode: null };
      }
      case "healthcheck": {
        const runtime = control.runtimeHandle();
        if (runtime === null) return { status: "skipped" };
        return waitUntilHealthy(config, build.port, control.logPath, control.signal, async () =>
          isBuildProcessGroupAlive(runtime, build.buildId) ? "alive" : "dead",
        );
      }
      default:
        throw new Error(`The process driver has no stage ${stage}.`);
    }
  },

  async runtimeLiveness(_config, buildId, runtimeHandle) {
    return isBuildProcessGroupAlive(runtimeHandle, buildId) ? "alive" : "dead";
  },

  async destroy(_config, buildId, handles) {
    await Promise.all([handles.runtime, ...handles.stages].map((handle) => stopBuildProcessGroup(handle, buildId)));
  },

  // Without a handle a process cannot be told apart from anyone else's: the recorded handles are all there is.
  async removeLeftovers() {},
};
