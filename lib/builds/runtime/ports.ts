import net from "node:net";
import { processWide } from "../../server/process-wide";

/**
 * Port leases of the runtimes: one per build, on the host's preview address (preview_address, loopback by
 * default), within the configured range. Kept on globalThis because Next bundles instrumentation.ts and the route
 * handlers separately: a destroy from a handler must free the lease that the executor took.
 *
 * A port freed a moment ago is leased again only when no other is free: the gateway keeps where a name leads for a
 * second (lib/gateway/resolve.ts), and in that second a destroyed build's name must not reach a new build on its port.
 */
const PORT_REST_MS = 10_000;
const globalForPorts = processWide<{
  buildPortLeases?: Map<number, string>;
  buildPortsReleasedAt?: Map<number, number>;
}>("buildPortLeases", () => ({}));

function leases(): Map<number, string> {
  globalForPorts.buildPortLeases ??= new Map();
  return globalForPorts.buildPortLeases;
}

function releasedAt(): Map<number, number> {
  globalForPorts.buildPortsReleasedAt ??= new Map();
  return globalForPorts.buildPortsReleasedAt;
}

/** Leases the first port of the range that nobody holds and nothing listens on; null when all are taken. */
export async function leasePort(
  buildId: string,
  range: { start: number; end: number },
  address = "127.0.0.1",
): Promise<number | null> {
  const resting = (port: number) => Date.now() - (releasedAt().get(port) ?? 0) < PORT_REST_MS;
  for (const rested of [true, false]) {
    for (let port = range.start; port <= range.end; port++) {
      if (leases().has(port) || (rested && resting(port))) continue;
      // Reserve before the asynchronous check, so two builds starting together cannot pick the same port.
      leases().set(port, buildId);
      if (await isPortFree(port, address)) {
        releasedAt().delete(port);
        return port;
      }
      leases().delete(port);
    }
  }
  return null;
}

/** Records a lease that survived a restart (a running build whose runtime is still alive). */
export function holdPort(buildId: string, port: number): void {
  leases().set(port, buildId);
}

export function releasePort(port: number | null | undefined): void {
  if (port == null) return;
  if (leases().delete(port)) releasedAt().set(port, Date.now());
}

function isPortFree(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once("error", () => resolve(false));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(true)));
  });
}
