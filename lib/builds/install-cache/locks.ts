import { processWide } from "../../server/process-wide";

/**
 * One install per key at a time on this builder host: the executor's slots all run in this process, so a lock
 * in memory covers them (a second builder host has entries of its own and installs for itself). A build that
 * finds its key held waits, then finds the first one's entry and restores it, or installs itself when the
 * first left none. Eviction skips held keys, so an entry is never removed under a restore.
 */
interface KeyLock {
  held: boolean;
  waiters: (() => void)[];
}

const globalForLocks = processWide<{ installCacheLocks?: Map<string, KeyLock> }>("installCacheLocks", () => ({}));

function locks(): Map<string, KeyLock> {
  globalForLocks.installCacheLocks ??= new Map();
  return globalForLocks.installCacheLocks;
}

export class LockWaitAborted extends Error {}

/** Whether a build holds the key now (installing, saving or restoring it). */
export function isKeyHeld(key: string): boolean {
  return locks().get(key)?.held === true;
}

/** Runs `work` holding the key's lock; waiting ends with LockWaitAborted when `signal` aborts (a cancel). */
export async function withKeyLock<T>(key: string, signal: AbortSignal, work: () => Promise<T>): Promise<T> {
  const all = locks();
  let lock = all.get(key);
  if (!lock) {
    lock = { held: false, waiters: [] };
    all.set(key, lock);
  }
  const current = lock;
  while (current.held) {
    if (signal.aborted) throw new LockWaitAborted();
    await new Promise<void>((resolve, reject) => {
      const wake = () => {
        signal.removeEventListener("abort", onAbort);
        resolve();
      };
      const onAbort = () => {
        current.waiters = current.waiters.filter((waiter) => waiter !== wake);
        reject(new LockWaitAborted());
      };
      current.waiters.push(wake);
      signal.addEventListener("abort", onAbort, { once: true });
    });
  }
  current.held = true;
  try {
    return await work();
  } finally {
    current.held = false;
    const next = current.waiters.shift();
    if (next) next();
    else if (all.get(key) === current) all.delete(key);
  }
}
