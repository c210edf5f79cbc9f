/**
 * Loaded into a server the bench measures (`node --import bench/support/gc-counter.mjs`, the app and the bare
 * baseline alike), outside the product: counts the process's garbage collections and answers them as JSON on
 * 127.0.0.1:BENCH_GC_PORT. Under load a request's p99 is set by full (mark-compact) collections: Next.js gives every
 * route handler a Request that follows an AbortSignal, and undici holds that through a WeakRef and a
 * FinalizationRegistry, which only a full collection frees; so every request, the floor's included, leaves about
 * 25 KB in the old generation, and a full collection comes every few seconds at 1,500 requests a second, stalling
 * the event loop by 50-100 ms. Counting them per round lets the bench show them beside each p99.
 */
import http from "node:http";
import { constants, PerformanceObserver } from "node:perf_hooks";

const port = Number(process.env.BENCH_GC_PORT);
if (port > 0) {
  const counts = { full: 0, fullPauseMs: 0, young: 0, youngPauseMs: 0 };
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = entry.detail?.kind;
      if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) {
        counts.full++;
        counts.fullPauseMs += entry.duration;
      } else if (kind === constants.NODE_PERFORMANCE_GC_MINOR) {
        counts.young++;
        counts.youngPauseMs += entry.duration;
      }
    }
  }).observe({ entryTypes: ["gc"] });
  const server = http.createServer((_request, response) => {
    response.writeHead(200, { "Content-Type": "application/json" });
    response.end(JSON.stringify(counts));
  });
  server.listen(port, "127.0.0.1");
  // The counter never keeps the server's process alive on its own.
  server.unref();
}
