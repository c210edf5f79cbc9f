import http from "node:http";
import type { AddressInfo } from "node:net";
import net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { checkDestination, forbiddenReason, guardedLookup, parseAllowedHosts } from "@/lib/rates/webhooks/destination";
import { postDelivery } from "@/lib/rates/webhooks/sender";

// Only loopback addresses and names that resolve to them: a mistake here must not send anything off this machine.
const none = parseAllowedHosts("");
const servers: net.Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

/** A TCP listener that counts the connections it gets. */
async function listener(host: string): Promise<{ port: number; connections: () => number }> {
  let connections = 0;
  const server = net.createServer((socket) => {
    connections++;
    socket.destroy();
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return { port: (server.address() as AddressInfo).port, connections: () => connections };
}

describe("webhook destinations (lib/rates/webhooks/destination.ts)", () => {
  it("classifies loopback addresses in every spelling as refused", () => {
    expect(forbiddenReason("127.0.0.1")).toBe("loopback");
    expect(forbiddenReason("127.255.255.254")).toBe("loopback");
    expect(forbiddenReason("::1")).toBe("loopback");
    expect(forbiddenReason("::ffff:127.0.0.1")).toBe("loopback");
    expect(forbiddenReason("0.0.0.0")).toBe("this network");
    // The spellings of IPv4 inside IPv6: what `http://[::127.0.0.1]` and `http://[::ffff:7f00:1]` parse to.
    expect(forbiddenReason(new URL("http://[::127.0.0.1]/").hostname.slice(1, -1))).toBeDefined();
    expect(forbiddenReason("::7f00:1")).toBe("an IPv4-compatible address");
    expect(forbiddenReason("::a00:1")).toBe("an IPv4-compatible address");
    expect(forbiddenReason("::ffff:7f00:1")).toBe("an IPv4-mapped address");
    expect(forbiddenReason("::ffff:0:7f00:1")).toBe("an IPv4-translated address");
    expect(forbiddenReason("0:0:0:0:0:0:7f00:1")).toBe("an IPv4-compatible address");
  });

  it("refuses http://[::127.0.0.1], loopback written as an IPv4-compatible IPv6 address", async () => {
    await expect(checkDestination(new URL("http://[::127.0.0.1]/hook"), none)).rejects.toThrow(
      /^::7f00:1, an IPv4-compatible address/,
    );
  });

  it("refuses a name that resolves to loopback, checked after resolution", async () => {
    await expect(checkDestination(new URL("http://localhost:1/"), none)).rejects.toThrow(
      /^localhost resolves to 127\.0\.0\.1, loopback/,
    );
  });

  it("allows what WEBHOOK_ALLOWED_HOSTS names: an address as resolved, a name as written", async () => {
    await expect(
      checkDestination(new URL("http://127.0.0.1:1/"), parseAllowedHosts("127.0.0.1")),
    ).resolves.toBeUndefined();
    await expect(
      checkDestination(new URL("http://localhost:1/"), parseAllowedHosts("localhost")),
    ).resolves.toBeUndefined();
    await expect(checkDestination(new URL("http://127.0.0.2:1/"), parseAllowedHosts("127.0.0.1"))).rejects.toThrow(
      /127\.0\.0\.2, loopback/,
    );
    await expect(
      checkDestination(new URL("http://[::1]:1/"), parseAllowedHosts("127.0.0.1, localhost")),
    ).rejects.toThrow(/::1, loopback/);
  });

  it("checks again when connecting: a refused name never gets a connection", async () => {
    const target = await listener("127.0.0.1");
    const error = await new Promise<Error>((resolve) => {
      const request = http.get(`http://localhost:${target.port}/`, { lookup: guardedLookup(none), agent: false });
      request.on("error", resolve);
    });
    expect(error.message).toMatch(/localhost resolves to 127\.0\.0\.1, loopback/);
    expect(target.connections()).toBe(0);
  });

  it("a delivery to 127.0.0.2 with only 127.0.0.1 allowed is refused before connecting", async () => {
    const target = await listener("127.0.0.2");
    const result = await postDelivery(
      `http://127.0.0.2:${target.port}/`,
      "{}",
      {},
      { timeoutMs: 2000, allowed: parseAllowedHosts("127.0.0.1") },
    );
    expect(result).toEqual({
      ok: false,
      status: null,
      error: expect.stringMatching(/^refused: 127\.0\.0\.2, loopback/),
    });
    const byName = await postDelivery(
      `http://localhost:${target.port}/`,
      "{}",
      {},
      { timeoutMs: 2000, allowed: parseAllowedHosts("127.0.0.2") },
    );
    expect(byName).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^refused: localhost resolves to 127\.0\.0\.1/),
    });
    expect(target.connections()).toBe(0);
  });
});
