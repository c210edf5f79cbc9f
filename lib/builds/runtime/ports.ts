import net from "node:net";

/**
 * Port leases of the runtimes: one per build, on 127.0.0.1, within the configured range. Kept on globalThis
 * because Next bundles instrumentation.ts and the route handlers separately: a destroy from a handler must
 * free the lease that the executor took.
 */
const globalForPorts = globalThis as unknown as { buildPortLeases?: Map<number, string> };

function leases(): Map<number, string> {
  globalForPorts.buildPortLeases ??= new Map();
  return globalForPorts.buildPortLeases;
}

/** Leases the first port of the range that nobody holds and nothing listens on; null when all are taken. */
export async function leasePort(buildId: string, range: { start: number; end: number }): Promise<number | null> {
  for (let port = range.start; port <= range.end; port++) {
    if (leases().has(port)) continue;
    // Reserve before the asynchronous check, so two builds starting together cannot pick the same port.
    leases().set(port, buildId);
    if (await isPortFree(port)) return port;
    leases().delete(port);
  }
  return null;
}

/** Records a lease that survived a restart (a running build whose runtime is still alive). */
export function holdPort(buildId: string, port: number): void {
  leases().set(port, buildId);
}

export function releasePort(port: number | null | undefined): void {
  if (port != null) leases().delete(port);
}

function isPortFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once("error", () => resolve(false));
    server.listen({ port, host: "127.0.0.1", exclusive: true }, () => server.close(() => resolve(true)));
  });
}
