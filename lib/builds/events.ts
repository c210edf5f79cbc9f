import { EventEmitter } from "node:events";

import type { BuildStatus } from "./status";

/**
 * What the executor tells the rest of the build service, without importing it: a build entered the queue, a
 * build left it (there may be room for a remembered notice), a build reached running (an older automatic
 * build of its branch can go), and any status move (the git host hears of it: lib/builds/forge). On
 * globalThis: instrumentation's bundle and the route handlers' must share one emitter.
 */
interface BuildEventMap {
  queued: [buildId: string];
  dequeued: [buildId: string];
  running: [buildId: string];
  moved: [buildId: string, to: BuildStatus];
}

const globalForEvents = globalThis as unknown as { buildEvents?: EventEmitter<BuildEventMap> };

export function buildEvents(): EventEmitter<BuildEventMap> {
  globalForEvents.buildEvents ??= new EventEmitter<BuildEventMap>();
  return globalForEvents.buildEvents;
}
