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
    expect(forbiddenReason("::ffff:7f00:1")).toBe("loopback");
    expect(forbiddenReason("::ffff:0:7f00:1")).toBe("an IPv4-translated address");
    expect(forbiddenReason("0:0:0:0:0:0:7f00:1")).toBe("an IPv4-compatible address");
  });

  // Literals only, judged without a connection: nothing here resolves a name or opens a socket.
  it("allows public IPv4 and IPv6 addresses, in every spelling of IPv4", () => {
    for (const address of ["1.1.1.1", "8.8.8.8", "9.9.9.9", "100.63.255.255", "172.32.0.1", "223.255.255.254"])
      expect(forbiddenReason(address), address).toBeUndefined();
    for (const address of ["::ffff:1.1.1.1", "::ffff:808:808", "0:0:0:0:0:ffff:0101:0101", "::FFFF:8.8.8.8"])
      expect(forbiddenReason(address), address).toBeUndefined();
    for (const address of ["2606:4700::1111", "2001:4860:4860::8888", "2a00:1450:4001:80b::200e"])
      expect(forbiddenReason(address), address).toBeUndefined();
  });

  it("refuses private, reserved and special IPv4 and IPv6 addresses, mapped or not", () => {
    const refused: [string, string][] = [
      ["10.1.2.3", "a private network"],
      ["172.16.0.1", "a private network"],
      ["172.31.255.255", "a private network"],
      ["192.168.1.1", "a private network"],
      ["100.64.0.1", "carrier-grade NAT"],
      ["169.254.169.254", "link-local (cloud metadata)"],
      ["224.0.0.1", "multicast"],
      ["255.255.255.255", "reserved"],
      ["::ffff:10.0.0.1", "a private network"],
      ["::ffff:a9fe:a9fe", "link-local (cloud metadata)"],
      ["::ffff:c0a8:101", "a private network"],
      ["fd00::1", "a private network (unique local)"],
      ["fe80::1", "link-local"],
      ["ff02::1", "multicast"],
      ["2001:db8::1", "documentation"],
      ["64:ff9b::808:808", "NAT64"],
      ["2002:808:808::1", "6to4"],
      ["::", "unspecified"],
    ];
    for (const [address, reason] of refused) expect(forbiddenReason(address), address).toBe(reason);
    expect(forbiddenReason("example.com")).toBe("not an IP address");
  });

  it("accepts http://1.1.1.1/ and http://[2606:4700::1111]/ when subscribing (literals: no lookup leaves the machine)", async () => {
    await expect(checkDestination(new URL("http://1.1.1.1/hook"), none)).resolves.toBeUndefined();
    await expect(checkDestination(new URL("http://[2606:4700::1111]/hook"), none)).resolves.toBeUndefined();
    await expect(checkDestination(new URL("http://[::ffff:10.0.0.1]/hook"), none)).rejects.toThrow(
      /^::ffff:a00:1, a private network/,
    );
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
