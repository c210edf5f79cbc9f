import { EventEmitter } from "node:events";

/**
 * What the executor tells the rest of the build service, without importing it: a build left the queue (there
 * may be room for a remembered notice), a build reached running (an older automatic build of its branch
 * can go). On globalThis: instrumentation's bundle and the route handlers' must share one emitter.
 */
interface BuildEventMap {
  dequeued: [buildId: string];
  running: [buildId: string];
}

const globalForEvents = globalThis as unknown as { buildEvents?: EventEmitter<BuildEventMap> };

export function buildEvents(): EventEmitter<BuildEventMap> {
  globalForEvents.buildEvents ??= new EventEmitter<BuildEventMap>();
  return globalForEvents.buildEvents;
}
