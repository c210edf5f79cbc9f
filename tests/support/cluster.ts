import fs from "node:fs";
import path from "node:path";
import { type AppServer, freePort, startAppServer } from "./app-server";
import {
  type BuildJson,
  type BuildsApp,
  type BuildsFixture,
  connectBuildsApp,
  expectAllDead,
  fixtureConfig,
  makeBuildsFixture,
  pidsOfBuild,
} from "./builds";
import { registerAndGetToken } from "./users";

/**
 * Two instances of the app on one PostgreSQL database (project integration-postgresql), each with its name and
 * INSTANCE_URL: `alpha` runs builds (one slot), `beta` by default none (max_concurrent_builds: 0), so that every
 * build runs on alpha and beta must forward what concerns alpha's builds. One user, registered through beta.
 */
export interface BuilderPair {
  alpha: BuildsApp;
  beta: BuildsApp;
  stop(): Promise<void>;
}

async function startInstance(name: string, configFile: string, env: Record<string, string>): Promise<AppServer> {
  const port = await freePort();
  return startAppServer({
    ...env,
    BUILDS_CONFIG: configFile,
    INSTANCE_NAME: name,
    PORT: String(port),
    INSTANCE_URL: `http://127.0.0.1:${port}`,
  });
}

export async function startBuilderPair(
  options: {
    env?: Record<string, string>;
    /** beta's own, over `env` (another DATABASE_URL to the same database, for one). */
    betaEnv?: Record<string, string>;
    betaSlots?: number;
    extraRepositories?: string;
    prepare?: (fixture: BuildsFixture) => void;
  } = {},
): Promise<BuilderPair> {
  const env = options.env ?? {};
  const fixture = makeBuildsFixture((partial) =>
    fixtureConfig(partial, { maxConcurrent: 1, extraRepositories: options.extraRepositories }),
  );
  options.prepare?.(fixture);
  // beta's own builds folder and ports: the settings each host keeps for itself.
  const betaConfig = path.join(fixture.root, "beta.config.yaml");
  const betaPorts = { start: fixture.ports.end + 1, end: fixture.ports.end + 10 };
  const betaFixture = { ...fixture, buildsRoot: path.join(fixture.root, "beta-builds"), ports: betaPorts };
  fs.writeFileSync(
    betaConfig,
    fixtureConfig(betaFixture, { maxConcurrent: options.betaSlots ?? 0, extraRepositories: options.extraRepositories }),
  );
  const alphaApp = await startInstance("alpha", fixture.configFile, env);
  const betaApp = await startInstance("beta", betaConfig, {
    ...env,
    DATABASE_URL: alphaApp.databaseUrl,
    ...options.betaEnv,
  });
  const { authorization } = await registerAndGetToken(betaApp);
  return {
    alpha: connectBuildsApp(alphaApp, fixture, authorization),
    beta: connectBuildsApp(betaApp, fixture, authorization),
    async stop() {
      // Every build's processes end first, through alpha (which forwards to beta what runs there); a test that
      // killed alpha has ended its builds before.
      if (isRunning(alphaApp.pid)) {
        await endEveryBuild(connectBuildsApp(alphaApp, fixture, authorization)).catch((error) =>
          console.error("cluster teardown:", error),
        );
      }
      // beta shares alpha's database, which alpha drops when it stops.
      await betaApp.stop();
      await alphaApp.stop();
      fs.rmSync(fixture.root, { recursive: true, force: true });
    },
  };
}

/** Whether the process `pid` still runs (a signal 0 reaches it). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Reads a response's body until `until` holds for what arrived (or it ends); returns the text. */
export async function readUntil(
  response: Response,
  until: (text: string) => boolean,
  timeoutMs = 30_000,
): Promise<string> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  const deadline = Date.now() + timeoutMs;
  while (!until(text)) {
    if (Date.now() > deadline) throw new Error(`the stream never showed what was awaited; got:\n${text}`);
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  await reader.cancel().catch(() => undefined);
  return text;
}

/**
 * Cancels or destroys every build (tests/support/builds.ts's tearDownBuilds without the stop), again for any that
 * moved meanwhile (a cancel that found it running), then waits for their processes.
 */
async function endEveryBuild(builds: BuildsApp): Promise<void> {
  const pids = new Set<number>();
  for (let round = 0; round < 5; round++) {
    const { builds: list } = (await (await builds.get("/builds?limit=100")).json()) as { builds: BuildJson[] };
    const live = list.filter((build) => !["failed", "canceled", "expired", "destroyed"].includes(build.status));
    if (live.length === 0) break;
    for (const build of live) {
      const inProgress = ["queued", "checking_out", "installing", "testing", "starting"].includes(build.status);
      await builds.app.fetch(inProgress ? `/builds/${build.build_id}/cancel` : `/builds/${build.build_id}`, {
        method: inProgress ? "POST" : "DELETE",
        headers: builds.authorization,
      });
      for (const pid of await pidsOfBuild(builds, build.build_id).catch(() => [])) pids.add(pid);
    }
  }
  await expectAllDead([...pids]);
}
