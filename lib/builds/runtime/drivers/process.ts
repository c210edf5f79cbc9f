import fs from "node:fs";
import path from "node:path";
import { buildProcessBaseEnv } from "../../../server/env";
import { installWithCache } from "../../install-cache/install-with-cache";
import { type BuildContext, describeOutcome, type RuntimeDriver, timeoutMessage } from "../driver";
import { waitUntilHealthy } from "../healthcheck";
import { encodeProcessHandle, isBuildProcessGroupAlive, stopBuildProcessGroup } from "../process-handles";
import { endProcessesOfUser, runToCompletion, spawnLogged, usersWithProcesses } from "../processes";
import { buildsRunAsOwnUsers, buildUser, handOverWorkspace, leasedBuildUsers, releaseBuildUser } from "../run-as";
import { workspacePaths } from "../workspace";

/**
 * The `process` driver: the configured shell commands run on the host, each in its own process group, in the
 * build's first repository checkout; when the server is root, each build as a uid of its own from
 * runtime.run_as_uids (lib/builds/runtime/run-as.ts), which is how its destroy finds every process it started.
 * Otherwise as the server's user, with no isolation: for trusted repositories and hosts without Docker. Its
 * handles are process handles (lib/builds/runtime/process-handles.ts).
 */
const SHELL = "/bin/sh";

/** The environment of the stage commands: the build's values, validated, and nothing from a request besides. */
function stageEnv(build: BuildContext): Record<string, string> {
  const base = buildProcessBaseEnv();
  // The server's home is not the build user's to write in.
  if (buildsRunAsOwnUsers(build.config) || base.HOME === undefined) base.HOME = build.paths.runtime;
  return {
    ...base,
    BUILD_ID: build.buildId,
    PORT: String(build.port),
    // Where the preview listens: the gateway (or a browser, without one) reaches it at this address and PORT.
    PREVIEW_ADDRESS: build.config.preview_address,
    MODULES: build.modules.join(","),
    ADDONS_PATH: build.repositories.map((r) => path.join(r.checkout, r.modulesPath)).join(":"),
    WORKSPACE: build.paths.root,
    // The application's folder (where the server runs), so that shared stage scripts, such as the demo's
    // examples/runtime, are found whatever repository is checked out.
    APP_DIR: process.cwd(),
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
      user: buildUser(config, build.buildId),
    });
    switch (stage) {
      case "install":
      case "test": {
        // The checkout is the server's work; from install on, the sources and runtime are the build user's.
        if (stage === "install") {
          const handedOver = await handOverWorkspace(
            config,
            build.buildId,
            [build.paths.sources, build.paths.runtime],
            control.logPath,
          );
          if (handedOver && "error" in handedOver) {
            fs.appendFileSync(control.logPath, `${handedOver.error}\n`);
            return { status: "failed", exitCode: null, message: handedOver.error };
          }
        }
        const runCommand = async (command: string, what: string, env: Record<string, string> = {}) => {
          const options = spawnOptions(command);
          const outcome = await runToCompletion(
            { ...options, env: { ...options.env, ...env } },
            {
              signal: control.signal,
              timeoutMs: control.timeoutMs,
              onStarted: (pgid) => control.recordHandle(encodeProcessHandle(pgid)),
            },
          );
          return describeOutcome(outcome, what, timeoutMessage(config, stage));
        };
        const command = config.runtime[stage];
        const runStageCommand = async () =>
          command ? runCommand(command, `The ${stage} command`) : ({ status: "skipped" } as const);
        if (stage === "test") return runStageCommand();
        return installWithCache(build, control, {
          install: runStageCommand,
          run: (cacheCommand, cacheDir, access) =>
            runCommand(String(cacheCommand), `The install cache's ${access === "read" ? "restore" : "save"} command`, {
              CACHE_DIR: cacheDir,
            }),
          writer: buildUser(config, build.buildId),
          // What the save left running as the build's uid could still write the folder the server seals next.
          endWriters: async () => {
            const user = buildUser(config, build.buildId);
            if (user) await endProcessesOfUser(user.uid);
          },
        });
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

  async destroy(config, buildId, handles) {
    // The recorded groups first, with their SIGTERM and grace period; then whatever left them (setsid, double
    // forks, env -i): every process of the build's uid.
    await Promise.all([handles.runtime, ...handles.stages].map((handle) => stopBuildProcessGroup(handle, buildId)));
    const user = buildUser(config, buildId);
    if (user) await endProcessesOfUser(user.uid);
  },

  // Sleep ends the runtime's processes as destroy does, and leaves the workspace and the build's user alone.
  async sleep(config, buildId, runtimeHandle) {
    await stopBuildProcessGroup(runtimeHandle, buildId);
    const user = buildUser(config, buildId);
    if (user) await endProcessesOfUser(user.uid);
  },

  /**
   * At start, after the recovery: only running builds may have processes. Those of every other build that
   * holds a uid here (a crash between a destroy's end and its lease's release, a build whose row is gone) are
   * ended, and the leases of such builds without files are released. Uids of the range leased by nobody here
   * are left alone: they may be another instance's (which should have a range of its own). Without uids of
   * their own (a server that is not root), a process cannot be told apart from anyone else's: the recorded
   * handles are all there is.
   */
  async removeLeftovers(config, keep) {
    if (!buildsRunAsOwnUsers(config)) return;
    for (const [buildId, uid] of leasedBuildUsers(config)) {
      if (keep.has(buildId)) continue;
      const paths = workspacePaths(config, buildId);
      if (usersWithProcesses(uid, uid).size > 0) {
        console.warn(`builds: ending the processes of build ${buildId} (uid ${uid}), which is no longer running`);
        await endProcessesOfUser(uid);
      }
      if (!fs.existsSync(paths.sources) && !fs.existsSync(paths.runtime)) releaseBuildUser(config, buildId);
    }
  },
};
