import { EventEmitter } from "node:events";
import { processWide } from "../server/process-wide";
import type { BuildStatus } from "./status";

/**
 * The build service's news within the process, so that its parts learn of each other's work without importing
 * one another or asking the database over and over: a build entered the queue, a build left it (there may be
 * room for a remembered notice), a build reached running (an older automatic build of its branch can go), any
 * status move (the git host hears of it: lib/builds/forge), and any change of a build's status or stages written
 * through ./repository.ts (its log streams learn that a stage ended). On globalThis: Next bundles
 * instrumentation.ts (the executor, which writes) apart from the route handlers (the streams, which listen), and
 * both must reach the same emitter.
 */
interface BuildEventMap {
  queued: [buildId: string];
  dequeued: [buildId: string];
  running: [buildId: string];
  moved: [buildId: string, to: BuildStatus];
  changed: [buildId: string];
}

const globalForEvents = processWide<{ buildEvents?: EventEmitter<BuildEventMap> }>("buildEvents", () => ({}));

export function buildEvents(): EventEmitter<BuildEventMap> {
  if (!globalForEvents.buildEvents) {
    globalForEvents.buildEvents = new EventEmitter<BuildEventMap>();
    // One listener per open log stream; the stream caps bound them, not this warning.
    globalForEvents.buildEvents.setMaxListeners(0);
  }
  return globalForEvents.buildEvents;
}

/** Calls `listener` after each change of the build; returns the function that stops it. */
export function onBuildChanged(buildId: string, listener: () => void): () => void {
  const ofThisBuild = (changed: string) => {
    if (changed === buildId) listener();
  };
  buildEvents().on("changed", ofThisBuild);
  return () => buildEvents().off("changed", ofThisBuild);
}
