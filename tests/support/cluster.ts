import fs from "node:fs";
import path from "node:path";
import { freePort, startAppServer, type AppServer } from "./app-server";
import { connectBuildsApp, fixtureConfig, makeBuildsFixture, type BuildsApp } from "./builds";
import { registerAndGetToken } from "./users";

/**
 * Two instances of the app on one PostgreSQL database (project integration-postgresql), each with its name and
 * INSTANCE_URL: `alpha` runs builds (one slot), `beta` runs none (max_concurrent_builds: 0), so that every build
 * runs on alpha and beta must forward what concerns alpha's builds. One user, registered through beta.
 */
export interface BuilderPair {
  alpha: BuildsApp;
  beta: BuildsApp;
  stop(): Promise<void>;
}

async function startInstance(name: string, configFile: string, env: Record<string, string>): Promise<AppServer> {
  const port = await freePort();
  return startAppServer({ ...env, BUILDS_CONFIG: configFile, INSTANCE_NAME: name, PORT: String(port), INSTANCE_URL: `http://127.0.0.1:${port}` });
}

export async function startBuilderPair(env: Record<string, string> = {}): Promise<BuilderPair> {
  const fixture = makeBuildsFixture((partial) => fixtureConfig(partial, { maxConcurrent: 1 }));
  // beta's own builds folder and ports: the settings each host keeps for itself.
  const betaConfig = path.join(fixture.root, "beta.config.yaml");
  const betaPorts = { start: fixture.ports.end + 1, end: fixture.ports.end + 10 };
  fs.writeFileSync(betaConfig, fixtureConfig({ ...fixture, buildsRoot: path.join(fixture.root, "beta-builds"), ports: betaPorts }, { maxConcurrent: 0 }));
  const alphaApp = await startInstance("alpha", fixture.configFile, env);
  const betaApp = await startInstance("beta", betaConfig, { ...env, DATABASE_URL: alphaApp.databaseUrl });
  const { authorization } = await registerAndGetToken(betaApp);
  return {
    alpha: connectBuildsApp(alphaApp, fixture, authorization),
    beta: connectBuildsApp(betaApp, fixture, authorization),
    async stop() {
      // beta shares alpha's database, which alpha drops when it stops.
      await betaApp.stop();
      await alphaApp.stop();
      fs.rmSync(fixture.root, { recursive: true, force: true });
    },
  };
}

/** Reads a response's body until `until` holds for what arrived (or it ends); returns the text. */
export async function readUntil(response: Response, until: (text: string) => boolean, timeoutMs = 30_000): Promise<string> {
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
