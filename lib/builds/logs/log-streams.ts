import fs from "node:fs";
import { serviceUnavailable } from "../../http/problem";
import { processWide } from "../../server/process-wide";

/**
 * What open log streams share: one file watcher per log file, and the count of streams in all and per
 * client. Kept on globalThis, like the executor's state, so every route bundle counts the same streams.
 */
interface Watched {
  watcher: fs.FSWatcher;
  listeners: Set<() => void>;
}

interface StreamsState {
  watched: Map<string, Watched>;
  open: number;
  perClient: Map<string, number>;
}

const globalForStreams = processWide<{ logStreams?: StreamsState }>("logStreams", () => ({}));

function state(): StreamsState {
  globalForStreams.logStreams ??= { watched: new Map(), open: 0, perClient: new Map() };
  return globalForStreams.logStreams;
}

/**
 * Calls `listener` when the file changes (inotify on Linux), through one watcher for all its streams. Returns
 * the function that stops listening, or null when the file cannot be watched (the stream then looks now
 * and then instead).
 */
export function watchLogFile(file: string, listener: () => void): (() => void) | null {
  const { watched } = state();
  let entry = watched.get(file);
  if (!entry) {
    let watcher: fs.FSWatcher;
    try {
      // Not persistent: a watcher alone must not keep the server from exiting.
      watcher = fs.watch(file, { persistent: false });
    } catch {
      return null;
    }
    const created: Watched = { watcher, listeners: new Set() };
    watcher.on("change", () => {
      for (const notify of created.listeners) notify();
    });
    watcher.on("error", () => {
      // The file went away (a destroyed build): wake the streams, which find out for themselves.
      watcher.close();
      if (watched.get(file) === created) watched.delete(file);
      for (const notify of created.listeners) notify();
    });
    watched.set(file, created);
    entry = created;
  }
  const current = entry;
  current.listeners.add(listener);
  return () => {
    current.listeners.delete(listener);
    if (current.listeners.size === 0) {
      current.watcher.close();
      if (watched.get(file) === current) watched.delete(file);
    }
  };
}

/** How many log files are watched now (for tests and the soak suite's report). */
export function watchedLogFiles(): number {
  return state().watched.size;
}

/** How many log streams this instance serves now (GET /metrics). */
export function openLogStreams(): number {
  return state().open;
}

const RETRY_AFTER_SECONDS = 10;

/**
 * Takes a stream slot for a client, or throws a 503 problem with Retry-After when the client or the server
 * has as many streams open as allowed. The returned function gives the slot back (once, however often called).
 */
export function acquireStreamSlot(client: string, limits: { total: number; perClient: number }): () => void {
  const streams = state();
  const mine = streams.perClient.get(client) ?? 0;
  if (mine >= limits.perClient) {
    throw serviceUnavailable(
      `This client has ${mine} log streams open, the most allowed (LOG_STREAMS_PER_CLIENT); close one or try again later.`,
      RETRY_AFTER_SECONDS,
    );
  }
  if (streams.open >= limits.total) {
    throw serviceUnavailable(
      `The server has ${streams.open} log streams open, the most allowed (LOG_STREAMS_MAX); try again later.`,
      RETRY_AFTER_SECONDS,
    );
  }
  streams.open++;
  streams.perClient.set(client, mine + 1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    streams.open--;
    const left = (streams.perClient.get(client) ?? 1) - 1;
    if (left > 0) streams.perClient.set(client, left);
    else streams.perClient.delete(client);
  };
}
