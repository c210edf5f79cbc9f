import { vi } from "vitest";

/**
 * For a file that runs lib/ code in the test process itself, on a database of its own. The integration projects
 * run a worker's files one after another in one process (`isolate: false`), so such a file must neither find the
 * lib/ modules, the process-wide values (lib/server/process-wide.ts: the database client and pool, the caches)
 * or the environment another file left, nor leave its own. Call it in beforeAll before setting the environment
 * and importing lib/ (dynamically); the function it answers, called in afterAll once the file's connections are
 * closed, puts the environment back and forgets the file's lib/ state.
 */
export function ownLibState(): () => void {
  const environment = { ...process.env };
  forgetLibState();
  return () => {
    forgetLibState();
    for (const name of Object.keys(process.env)) if (!(name in environment)) delete process.env[name];
    Object.assign(process.env, environment);
  };
}

function forgetLibState(): void {
  vi.resetModules();
  const shared = globalThis as unknown as Record<symbol, unknown>;
  for (const key of Object.getOwnPropertySymbols(shared)) {
    if (key.description?.startsWith("process-wide:")) delete shared[key];
  }
}
