import { EventEmitter } from "node:events";

/**
 * In-process news of builds: every status or stage change written through ./repository.ts is announced here,
 * so that log streams learn that a stage ended without asking the database over and over. Kept on
 * globalThis: Next bundles instrumentation.ts (the executor, which writes) apart from the route handlers
 * (the streams, which listen), and both must reach the same emitter. Its own key: ./events.ts keeps the
 * executor's news under `buildEvents`, and sharing that emitter left this one's listener limit to whichever
 * module made it first.
 */
const globalForEvents = globalThis as unknown as { buildChangeEvents?: EventEmitter };

function emitter(): EventEmitter {
  if (!globalForEvents.buildChangeEvents) {
    globalForEvents.buildChangeEvents = new EventEmitter();
    // One listener per open stream of a build; the stream caps bound them, not this warning.
    globalForEvents.buildChangeEvents.setMaxListeners(0);
  }
  return globalForEvents.buildChangeEvents;
}

export function notifyBuildChanged(buildId: string): void {
  emitter().emit(buildId);
}

/** Calls `listener` after each change of the build; returns the function that stops it. */
export function onBuildChanged(buildId: string, listener: () => void): () => void {
  emitter().on(buildId, listener);
  return () => emitter().off(buildId, listener);
}
