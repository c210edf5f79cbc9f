import { execFile } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { buildProcessBaseEnv } from "../../../server/env";
import { processWide } from "../../../server/process-wide";
import type { BuildsConfig } from "../../config";
import { type CacheCommand, installWithCache } from "../../install-cache/install-with-cache";
import { logStamp } from "../../logs/log-time";
import {
  type BuildContext,
  describeOutcome,
  type Liveness,
  type Readiness,
  type RunOutcome,
  type RuntimeDriver,
  RuntimeUnavailableError,
  type StageControl,
  type StageResult,
  timeoutMessage,
} from "../driver";
import { waitUntilHealthy } from "../healthcheck";
import { encodeProcessHandle, isBuildProcessGroupAlive, stopBuildProcessGroup } from "../process-handles";
import { runToCompletion, sleep, spawnLogged } from "../processes";
import {
  BUILD_LABEL,
  type ComposeVariables,
  INSTANCE_LABEL,
  renderComposeFile,
  substituteArguments,
  TemplateError,
} from "./compose-template";

/**
 * The `compose` driver: each build is its own Docker Compose project, rendered from the configured template
 * into the build's workspace, so a build is an isolated stack (for Odoo: the server and its own PostgreSQL).
 * Everything reaches the docker CLI as argv. Projects are named from this service's builds_root and the
 * build id, so recovery can find them by Compose's project label, and tell this service's builds from
 * another's on the same Docker host. The runtime handle is the project and the process that copies the
 * containers' output into the start log.
 */
type ComposeConfig = NonNullable<BuildsConfig["runtime"]["compose"]>;

const PROJECT_LABEL = "com.docker.compose.project";
const SERVICE_LABEL = "com.docker.compose.service";
/** How long a docker query (ps, inspect, version) may take before the daemon counts as not answering. */
const QUERY_TIMEOUT_MS = 10_000;
const DESTROY_TIMEOUT_MS = 120_000;

function composeConfig(config: BuildsConfig): ComposeConfig {
  const compose = config.runtime.compose;
  if (!compose) throw new Error("runtime.compose is not configured");
  return compose;
}

/** A short key of this service's builds_root: projects of other services on the same Docker host differ. */
function instanceKey(config: BuildsConfig): string {
  return crypto.createHash("sha256").update(config.builds_root).digest("hex").slice(0, 8);
}

function projectName(config: BuildsConfig, buildId: string): string {
  return `runbot-${instanceKey(config)}-${buildId}`;
}

function buildIdOfProject(config: BuildsConfig, project: string): string | null {
  const prefix = `runbot-${instanceKey(config)}-`;
  return project.startsWith(prefix) && /^[0-9a-f]{16}$/.test(project.slice(prefix.length))
    ? project.slice(prefix.length)
    : null;
}

function composeFile(config: BuildsConfig, buildId: string): string {
  return path.join(config.builds_root, buildId, "runtime", "compose.yaml");
}

/** The CLI's environment: DOCKER_HOST and friends, and the build id that marks the build's processes. */
function cliEnv(buildId?: string): Record<string, string> {
  return { ...buildProcessBaseEnv(), ...(buildId ? { BUILD_ID: buildId } : {}) };
}

interface CommandResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a short docker command and captures its output; a failure to start is code null. */
function capture(file: string, args: string[], timeoutMs = QUERY_TIMEOUT_MS): Promise<CommandResult> {
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      { env: cliEnv() as NodeJS.ProcessEnv, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : null) : 0;
        resolve({
          code,
          stdout: String(stdout),
          stderr: String(stderr) || (error && code === null ? error.message : ""),
        });
      },
    );
  });
}

/** The Compose client as argv: `docker compose` (v2) or `docker-compose` (v1), as configured or detected. */
type ComposeCli = { file: string; prefix: string[] };

const globalForCompose = processWide<{
  composeCli?: Promise<ComposeCli | null>;
  composeReadiness?: { at: number; result: Promise<Readiness> };
}>("composeCli", () => ({}));

async function detectCli(compose: ComposeConfig): Promise<ComposeCli | null> {
  const v2: ComposeCli = { file: "docker", prefix: ["compose"] };
  const v1: ComposeCli = { file: "docker-compose", prefix: [] };
  const candidates = compose.cli === "docker compose" ? [v2] : compose.cli === "docker-compose" ? [v1] : [v2, v1];
  for (const candidate of candidates) {
    if ((await capture(candidate.file, [...candidate.prefix, "version"])).code === 0) return candidate;
  }
  return null;
}

function composeCli(config: BuildsConfig): Promise<ComposeCli | null> {
  const compose = composeConfig(config);
  globalForCompose.composeCli ??= detectCli(compose).then((cli) => {
    // Not found is not remembered: the operator may install it while the service runs.
    if (!cli) globalForCompose.composeCli = undefined;
    return cli;
  });
  return globalForCompose.composeCli;
}

async function requireCli(config: BuildsConfig): Promise<ComposeCli> {
  const cli = await composeCli(config);
  if (!cli) throw new RuntimeUnavailableError(noCliReason(composeConfig(config)));
  return cli;
}

function noCliReason(compose: ComposeConfig): string {
  return compose.cli === "auto"
    ? "Neither `docker compose` nor `docker-compose` is installed."
    : `\`${compose.cli}\` is not installed (runtime.compose.cli).`;
}

function firstLine(text: string): string {
  return (
    text
      .trim()
      .split("\n")
      .find((line) => line.trim() !== "")
      ?.trim()
      .slice(0, 300) ?? ""
  );
}

async function checkReadiness(config: BuildsConfig): Promise<Readiness> {
  const version = await capture("docker", ["version", "--format", "{{.Server.Version}}"]);
  if (version.code === null && /ENOENT/.test(version.stderr)) {
    return { ready: false, reason: "Docker is not installed on this host (no `docker` command)." };
  }
  if (version.code !== 0) {
    const where = buildProcessBaseEnv().DOCKER_HOST ?? "the default socket";
    return {
      ready: false,
      reason: `The Docker daemon at ${where} does not answer: ${firstLine(version.stderr) || "no reply"}`,
    };
  }
  if (!(await composeCli(config))) return { ready: false, reason: noCliReason(composeConfig(config)) };
  return { ready: true };
}

/** Docker queries and container lists by the project label. */
async function docker(args: string[], timeoutMs = QUERY_TIMEOUT_MS): Promise<string> {
  const result = await capture("docker", args, timeoutMs);
  if (result.code !== 0)
    throw new RuntimeUnavailableError(`docker ${args[0]} failed: ${firstLine(result.stderr) || "no reply"}`);
  return result.stdout;
}

const lines = (text: string) =>
  text
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean);

async function projectContainers(project: string, extraFilters: string[] = []): Promise<string[]> {
  const filters = [`label=${PROJECT_LABEL}=${project}`, ...extraFilters].flatMap((filter) => ["--filter", filter]);
  return lines(await docker(["ps", "-aq", ...filters]));
}

/**
 * Removes by label whatever of a project is left (containers, then networks and volumes), then checks that
 * nothing is: a removal that fails because another destroy got there first does not matter, a leftover does.
 */
async function sweepProject(project: string): Promise<void> {
  const filter = ["--filter", `label=${PROJECT_LABEL}=${project}`];
  const list = async () => ({
    containers: lines(await docker(["ps", "-aq", ...filter])),
    networks: lines(await docker(["network", "ls", "-q", ...filter])),
    volumes: lines(await docker(["volume", "ls", "-q", ...filter])),
  });
  const found = await list();
  if (found.containers.length > 0) await capture("docker", ["rm", "-f", "-v", ...found.containers], DESTROY_TIMEOUT_MS);
  if (found.networks.length > 0) await capture("docker", ["network", "rm", ...found.networks], DESTROY_TIMEOUT_MS);
  if (found.volumes.length > 0) await capture("docker", ["volume", "rm", "-f", ...found.volumes], DESTROY_TIMEOUT_MS);
  if (found.containers.length + found.networks.length + found.volumes.length === 0) return;
  const left = await list();
  const count = left.containers.length + left.networks.length + left.volumes.length;
  if (count > 0)
    throw new RuntimeUnavailableError(`${count} containers, networks or volumes of ${project} could not be removed.`);
}

interface ComposeRuntimeHandle {
  project: string;
  /** The process handle of `compose logs --follow`, which writes the containers' output to the start log. */
  logs?: string;
}

function parseRuntimeHandle(text: string | null): ComposeRuntimeHandle | null {
  if (!text) return null;
  try {
    const value = JSON.parse(text) as ComposeRuntimeHandle;
    return typeof value.project === "string" ? value : null;
  } catch {
    return null;
  }
}

/** The values a build fills into its template and its install and test commands. */
export function variablesOf(build: BuildContext): ComposeVariables {
  const compose = composeConfig(build.config);
  return {
    BUILD_ID: build.buildId,
    PROJECT: projectName(build.config, build.buildId),
    PORT: String(build.port),
    PREVIEW_ADDRESS: build.config.preview_address,
    MODULES: build.modules.join(","),
    DATABASE: `build_${build.buildId}`,
    WORKSPACE: build.paths.root,
    SOURCES: build.paths.sources,
    ADDONS_PATH: build.repositories.map((r) => path.join(r.checkout, r.modulesPath)).join(":"),
    CONTAINER_ADDONS_PATH: build.repositories
      .map((r) => path.posix.join(compose.sources_mount, r.alias, r.modulesPath))
      .join(","),
    BUILD_SECRET: buildSecret(build.paths.runtime),
  };
}

/**
 * A random secret of the build (32 hex characters), for the template to use where a preview would otherwise
 * have a well-known password (Odoo's master password): made on first use and kept in the build's runtime
 * folder (0600), so every stage, a restart and a wake see the same one; it goes with the runtime.
 */
function buildSecret(runtimeFolder: string): string {
  const file = path.join(runtimeFolder, "build-secret");
  fs.mkdirSync(runtimeFolder, { recursive: true });
  try {
    fs.writeFileSync(file, crypto.randomBytes(16).toString("hex"), { flag: "wx", mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  const secret = fs.readFileSync(file, "utf8").trim();
  if (!/^[0-9a-f]{32}$/.test(secret))
    throw new Error(`The build's secret file ${file} is damaged; destroy and rebuild the build.`);
  return secret;
}

/** Runs `compose -p PROJECT -f FILE args...` with its output in the stage's log, as the stage's recorded work. */
async function runCompose(build: BuildContext, control: StageControl, args: string[]): Promise<RunOutcome> {
  const cli = await requireCli(build.config);
  const fullArgs = [
    ...cli.prefix,
    "-p",
    projectName(build.config, build.buildId),
    "-f",
    composeFile(build.config, build.buildId),
    ...args,
  ];
  fs.appendFileSync(control.logPath, `$ ${[cli.file, ...fullArgs].join(" ")}\n`);
  return runToCompletion(
    { file: cli.file, args: fullArgs, cwd: build.paths.runtime, env: cliEnv(build.buildId), logPath: control.logPath },
    {
      signal: control.signal,
      timeoutMs: control.timeoutMs,
      onStarted: (pgid) => control.recordHandle(encodeProcessHandle(pgid)),
    },
  );
}

function stageOutcome(build: BuildContext, stage: string, outcome: RunOutcome, what: string): StageResult {
  return describeOutcome(outcome, what, timeoutMessage(build.config, stage));
}

/** Polls a service's container until Docker reports it healthy (or running, without a healthcheck). */
async function waitForService(build: BuildContext, control: StageControl, service: string): Promise<StageResult> {
  const project = projectName(build.config, build.buildId);
  const deadline = Date.now() + control.timeoutMs;
  const log = (line: string) => fs.appendFileSync(control.logPath, `${logStamp()} ${line}\n`);
  let last = "";
  while (!control.signal.aborted) {
    const [container] = await projectContainers(project, [
      `label=${SERVICE_LABEL}=${service}`,
      "label=com.docker.compose.oneoff=False",
    ]);
    const state = container
      ? firstLine(
          await docker([
            "inspect",
            "--format",
            "{{.State.Status}} {{if .State.Health}}{{.State.Health.Status}}{{end}}",
            container,
          ]),
        )
      : "missing";
    if (state !== last) log(`${service}: ${state}`);
    last = state;
    const [status, health] = state.split(" ");
    if (status === "running" && (health === undefined || health === "healthy"))
      return { status: "succeeded", exitCode: null };
    if (status === "exited" || status === "dead" || health === "unhealthy") {
      return { status: "failed", exitCode: null, message: `The ${service} service is ${state}; see the database log.` };
    }
    if (Date.now() >= deadline)
      return { status: "failed", exitCode: null, message: timeoutMessage(build.config, "database") };
    await sleep(500, control.signal);
  }
  return { status: "canceled" };
}

async function runServiceCommand(
  build: BuildContext,
  control: StageControl,
  stage: "install" | "test",
): Promise<StageResult> {
  const compose = composeConfig(build.config);
  const step = compose[stage];
  if (!step) return { status: "skipped" };
  const args = substituteArguments(step.command, variablesOf(build));
  if (step.mode === "exec") {
    const up = await runCompose(build, control, ["up", "-d", "--no-color", step.service]);
    if (up.kind !== "exited" || up.code !== 0) return stageOutcome(build, stage, up, `compose up of ${step.service}`);
    return stageOutcome(
      build,
      stage,
      await runCompose(build, control, ["exec", "-T", step.service, ...args]),
      `The ${stage} command`,
    );
  }
  return stageOutcome(
    build,
    stage,
    await runCompose(build, control, ["run", "--rm", "-T", step.service, ...args]),
    `The ${stage} command`,
  );
}

/** Where a save or restore container sees the entry's folder (CACHE_DIR). */
const CONTAINER_CACHE_DIR = "/install-cache";

/**
 * A save or restore of the install cache: a one-off container of the service with the entry's folder mounted at
 * CACHE_DIR, read-only for a restore.
 */
async function runCacheCommand(
  build: BuildContext,
  control: StageControl,
  step: CacheCommand,
  cacheDir: string,
  access: "read" | "write",
): Promise<StageResult> {
  if (typeof step === "string") throw new Error("a compose install cache command must be { service, command }");
  const args = substituteArguments(step.command, variablesOf(build));
  const mount = `${cacheDir}:${CONTAINER_CACHE_DIR}${access === "read" ? ":ro" : ""}`;
  const outcome = await runCompose(build, control, [
    "run",
    "--rm",
    "-T",
    "-v",
    mount,
    "-e",
    `CACHE_DIR=${CONTAINER_CACHE_DIR}`,
    step.service,
    ...args,
  ]);
  return stageOutcome(
    build,
    "install",
    outcome,
    `The install cache's ${access === "read" ? "restore" : "save"} command`,
  );
}

async function liveness(config: BuildsConfig, buildId: string): Promise<Liveness> {
  const compose = composeConfig(config);
  try {
    const running = await projectContainers(projectName(config, buildId), [
      `label=${SERVICE_LABEL}=${compose.web_service}`,
      "label=com.docker.compose.oneoff=False",
      "status=running",
    ]);
    return running.length > 0 ? "alive" : "dead";
  } catch {
    return "unknown";
  }
}

export const composeDriver: RuntimeDriver = {
  name: "compose",
  stages: [
    { name: "checkout", status: "checking_out" },
    { name: "render", status: "checking_out" },
    { name: "validate", status: "checking_out" },
    { name: "database", status: "installing" },
    { name: "install", status: "installing" },
    { name: "test", status: "testing" },
    { name: "start", status: "starting" },
    { name: "healthcheck", status: "starting" },
  ],

  readiness(config) {
    // Shared for a few seconds: every POST /builds and /app-config asks, the daemon need not answer each.
    const cached = globalForCompose.composeReadiness;
    if (cached && Date.now() - cached.at < 5_000) return cached.result;
    const result = checkReadiness(config);
    globalForCompose.composeReadiness = { at: Date.now(), result };
    return result;
  },

  async runStage(stage, build, control) {
    const compose = composeConfig(build.config);
    try {
      switch (stage) {
        case "render": {
          const file = composeFile(build.config, build.buildId);
          let rendered: string;
          try {
            rendered = renderComposeFile(fs.readFileSync(compose.template, "utf8"), variablesOf(build), {
              [BUILD_LABEL]: build.buildId,
              [INSTANCE_LABEL]: instanceKey(build.config),
            });
          } catch (error) {
            const message =
              error instanceof TemplateError ? error.message : `Cannot read the template: ${(error as Error).message}`;
            fs.appendFileSync(control.logPath, `${message}\n`);
            return { status: "failed", exitCode: null, message };
          }
          fs.writeFileSync(file, rendered);
          fs.appendFileSync(control.logPath, `${compose.template} rendered to ${file}:\n\n${rendered}`);
          return { status: "succeeded", exitCode: null };
        }
        case "validate":
          return stageOutcome(build, stage, await runCompose(build, control, ["config", "--quiet"]), "compose config");
        case "database": {
          if (!compose.database_service) return { status: "skipped" };
          const up = await runCompose(build, control, ["up", "-d", "--no-color", compose.database_service]);
          if (up.kind !== "exited" || up.code !== 0)
            return stageOutcome(build, stage, up, `compose up of ${compose.database_service}`);
          const result = await waitForService(build, control, compose.database_service);
          if (result.status === "canceled") return result;
          // The database's own output belongs in this stage's log too (the last lines: enough to see why it failed).
          await runCompose(build, control, ["logs", "--no-color", "--tail=200", compose.database_service]);
          return result;
        }
        case "install":
          return await installWithCache(build, control, {
            install: () => runServiceCommand(build, control, stage),
            run: (command, cacheDir, access) => runCacheCommand(build, control, command, cacheDir, access),
            writer: "containers",
            // `compose run --rm`: the container that wrote the folder is gone when the command returns.
            endWriters: async () => undefined,
          });
        case "test":
          return await runServiceCommand(build, control, stage);
        case "start": {
          const up = await runCompose(build, control, ["up", "-d", "--no-color", "--remove-orphans"]);
          if (up.kind !== "exited" || up.code !== 0) return stageOutcome(build, stage, up, "compose up");
          const cli = await requireCli(build.config);
          const project = projectName(build.config, build.buildId);
          // The containers' output goes on into the start log while the runtime lives, as with the process driver.
          const follower = await spawnLogged({
            file: cli.file,
            args: [
              ...cli.prefix,
              "-p",
              project,
              "-f",
              composeFile(build.config, build.buildId),
              "logs",
              "--follow",
              "--no-color",
            ],
            cwd: build.paths.runtime,
            env: cliEnv(build.buildId),
            logPath: control.logPath,
          });
          await control.recordRuntime(
            JSON.stringify({ project, logs: encodeProcessHandle(follower.pgid) } satisfies ComposeRuntimeHandle),
          );
          return { status: "succeeded", exitCode: null };
        }
        case "healthcheck":
          return await waitUntilHealthy(build.config, build.port, control.logPath, control.signal, () =>
            liveness(build.config, build.buildId),
          );
        default:
          throw new Error(`The compose driver has no stage ${stage}.`);
      }
    } catch (error) {
      if (!(error instanceof RuntimeUnavailableError)) throw error;
      fs.appendFileSync(control.logPath, `${error.message}\n`);
      return { status: "failed", exitCode: null, message: error.message };
    }
  },

  async runtimeLiveness(config, buildId, runtimeHandle) {
    if (!parseRuntimeHandle(runtimeHandle)) return "dead";
    return liveness(config, buildId);
  },

  async destroy(config, buildId, handles) {
    const runtime = parseRuntimeHandle(handles.runtime);
    // The CLI processes first, so that nothing creates containers while the project is taken down.
    await Promise.all(
      [runtime?.logs ?? null, ...handles.stages].map((handle) => stopBuildProcessGroup(handle, buildId)),
    );
    const project = projectName(config, buildId);
    const file = composeFile(config, buildId);
    const cli = await composeCli(config);
    if (cli && fs.existsSync(file)) {
      const down = await capture(
        cli.file,
        [
          ...cli.prefix,
          "-p",
          project,
          "-f",
          file,
          "down",
          "--volumes",
          "--remove-orphans",
          "-t",
          String(composeConfig(config).stop_timeout_seconds),
        ],
        DESTROY_TIMEOUT_MS,
      );
      if (down.code !== 0) console.warn(`builds: compose down of ${project} failed: ${firstLine(down.stderr)}`);
    }
    // Whatever `down` left (one-off containers, a file already gone, a failed down) goes by its label.
    await sweepProject(project);
    // Nothing of it may stay: the follower ends with its containers, but a restart may have left one.
    if (isBuildProcessGroupAlive(runtime?.logs, buildId)) await stopBuildProcessGroup(runtime?.logs, buildId);
  },

  async sleep(config, buildId, runtimeHandle) {
    const runtime = parseRuntimeHandle(runtimeHandle);
    // The log follower first: it would otherwise end on its own, or keep a stopped project's logs open.
    await stopBuildProcessGroup(runtime?.logs ?? null, buildId);
    const cli = await requireCli(config);
    const file = composeFile(config, buildId);
    const stop = await capture(
      cli.file,
      [
        ...cli.prefix,
        "-p",
        projectName(config, buildId),
        "-f",
        file,
        "stop",
        "-t",
        String(composeConfig(config).stop_timeout_seconds),
      ],
      DESTROY_TIMEOUT_MS,
    );
    if (stop.code !== 0) throw new RuntimeUnavailableError(`compose stop failed: ${firstLine(stop.stderr)}`);
  },

  async removeLeftovers(config, keep) {
    const format = ["--format", `{{.Label "${PROJECT_LABEL}"}}`];
    const filter = ["--filter", `label=${PROJECT_LABEL}`];
    const projects = new Set<string>();
    for (const list of [
      ["ps", "-a"],
      ["network", "ls"],
      ["volume", "ls"],
    ]) {
      for (const project of lines(await docker([...list, ...filter, ...format]))) projects.add(project);
    }
    for (const project of projects) {
      const buildId = buildIdOfProject(config, project);
      if (buildId === null || keep.has(buildId)) continue;
      console.warn(`builds: removing ${project}, left by build ${buildId} which is no longer active`);
      await sweepProject(project);
    }
  },
};
