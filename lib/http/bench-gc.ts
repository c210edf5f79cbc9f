import { constants, PerformanceObserver } from "node:perf_hooks";

/**
 * The server's garbage collections, counted for the benchmark (GET /bench/gc under BENCH_ROUTES=1). Under load a
 * request's p99 is set by full (mark-compact) collections: Next.js gives every route handler a Request that
 * follows an AbortSignal, and undici holds that through a WeakRef and a FinalizationRegistry, which only a full
 * collection frees. So every request, the floor's included, leaves about 25 KB in the old generation, and a full
 * collection comes every few seconds at 1,500 requests a second, stalling the event loop by 50–100 ms. Counting
 * them per round lets the benchmark show it beside each p99.
 */
export interface GarbageCollectionCounts {
  full: number;
  fullPauseMs: number;
  young: number;
  youngPauseMs: number;
}

const state = globalThis as unknown as { garbageCollections?: GarbageCollectionCounts };

/** Starts counting (once per process); instrumentation.ts calls it when BENCH_ROUTES=1. */
export function countGarbageCollections(): void {
  if (state.garbageCollections) return;
  const counts: GarbageCollectionCounts = { full: 0, fullPauseMs: 0, young: 0, youngPauseMs: 0 };
  state.garbageCollections = counts;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as typeof entry & { detail?: { kind?: number } }).detail?.kind;
      if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) {
        counts.full++;
        counts.fullPauseMs += entry.duration;
      } else if (kind === constants.NODE_PERFORMANCE_GC_MINOR) {
        counts.young++;
        counts.youngPauseMs += entry.duration;
      }
    }
  }).observe({ entryTypes: ["gc"] });
}

/** The counts so far, or undefined when not counting. */
export function garbageCollectionCounts(): GarbageCollectionCounts | undefined {
  return state.garbageCollections && { ...state.garbageCollections };
}
