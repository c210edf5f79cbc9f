import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installSocketAddressStamp } from "@/lib/http/client-address";
import { requestsInFlight, whenNoRequestsInFlight } from "@/lib/http/requests-in-flight";

/** A real node:http server with the stamp instrumentation.ts installs; each request is answered after `?ms=`. */
let server: http.Server;
let base: string;
beforeAll(async () => {
  installSocketAddressStamp();
  server = http.createServer((request, response) => {
    const ms = Number(new URL(request.url!, "http://x").searchParams.get("ms") ?? 0);
    setTimeout(() => response.end("ok"), ms);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const until = async (condition: () => boolean) => {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 2));
};

describe("requests in flight", () => {
  it("counts a request from its arrival to its answer, and lets the waiter go when none is left", async () => {
    expect(requestsInFlight()).toBe(0);
    const answered = fetch(`${base}/builds?ms=300`).then((response) => response.text());
    await until(() => requestsInFlight() === 1);
    const started = Date.now();
    await whenNoRequestsInFlight(5_000);
    expect(Date.now() - started).toBeGreaterThan(200);
    expect(requestsInFlight()).toBe(0);
    expect(await answered).toBe("ok");
  });

  it("waits no longer than its bound, and does not count log streams, which last as long as their clients like", async () => {
    const stream = fetch(`${base}/builds/abc/logs/stream?stage=install&ms=400`).then((response) => response.text());
    const slow = fetch(`${base}/rates/?ms=400`).then((response) => response.text());
    await until(() => requestsInFlight() === 1);
    const started = Date.now();
    await whenNoRequestsInFlight(50);
    expect(Date.now() - started).toBeLessThan(300);
    expect(requestsInFlight()).toBe(1);
    await Promise.all([stream, slow]);
    expect(requestsInFlight()).toBe(0);
  });
});
