import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { thisInstanceName, thisProcess } from "@/lib/cluster/instances";
import { peerAddressee, signPeerRequest, verifyPeerRequest } from "@/lib/cluster/peer-auth";
import type { HttpProblem } from "@/lib/http/problem";
import { resetEnvCache } from "@/lib/server/env";

/** Instance-to-instance signatures (lib/cluster/peer-auth.ts): what a forwarded request must carry to be served. */
const original = { ...process.env };
beforeAll(() => {
  process.env.NEXTAUTH_SECRET = "a-secret-shared-by-every-instance-of-the-cluster";
  resetEnvCache();
});
afterAll(() => {
  process.env = original;
  resetEnvCache();
});

const identity = { userId: 7, sid: "3b1f0c2a" };
/** The instance the test's requests are for: this process, under its instance name. */
const here = () => peerAddressee(thisInstanceName(), thisProcess().id);

function signed(method: string, path: string, headers: Record<string, string>, body?: string) {
  return new Request(`http://10.0.0.2:3000${path}`, { method, headers, body });
}

async function refusal(request: Request, now?: number): Promise<HttpProblem> {
  try {
    await verifyPeerRequest(request, now);
  } catch (error) {
    return error as HttpProblem;
  }
  throw new Error("the request was accepted");
}

describe("instance-to-instance signatures", () => {
  it("carry the forwarding instance, the user it verified and the client's address", async () => {
    const headers = signPeerRequest("POST", "/builds/abc/cancel", "build-1:3000", here(), identity, "192.0.2.10");
    expect(await verifyPeerRequest(signed("POST", "/builds/abc/cancel", headers))).toEqual({
      from: "build-1:3000",
      identity,
      client: "192.0.2.10",
    });
  });

  it("carry no user for a public read", async () => {
    const headers = signPeerRequest(
      "GET",
      "/builds/abc/logs?stage=install",
      "build-1:3000",
      here(),
      null,
      "192.0.2.10",
    );
    expect((await verifyPeerRequest(signed("GET", "/builds/abc/logs?stage=install", headers)))?.identity).toBeNull();
  });

  it("are no concern of a request without any of their headers", async () => {
    expect(await verifyPeerRequest(signed("GET", "/builds/abc/logs", {}))).toBeNull();
  });

  it("hold for the method, path and query they were made for only", async () => {
    const headers = signPeerRequest(
      "GET",
      "/builds/abc/logs?stage=install",
      "build-1:3000",
      here(),
      null,
      "192.0.2.10",
    );
    expect((await refusal(signed("GET", "/builds/abc/logs?stage=test", headers))).status).toBe(401);
    expect((await refusal(signed("DELETE", "/builds/abc/logs?stage=install", headers))).status).toBe(401);
    expect((await refusal(signed("GET", "/builds/other/logs?stage=install", headers))).detail).toMatch(
      /signature does not match/,
    );
  });

  it("refuse another user, instance or client put in their place", async () => {
    const headers = signPeerRequest("DELETE", "/builds/abc", "build-1:3000", here(), identity, "192.0.2.10");
    for (const [name, value] of [
      ["x-instance-user", "1 3b1f0c2a"],
      ["x-instance-from", "build-2:3000"],
      ["x-instance-client", "127.0.0.1"],
    ]) {
      expect((await refusal(signed("DELETE", "/builds/abc", { ...headers, [name]: value }))).status).toBe(401);
    }
  });

  it("hold for the instance they were signed for only, as the process that holds its name now", async () => {
    for (const to of [
      peerAddressee("build-2:3000", thisProcess().id),
      // This instance before a restart: the same name, another process.
      peerAddressee(thisInstanceName(), "0".repeat(24)),
    ]) {
      const headers = signPeerRequest("GET", "/builds/abc/logs", "build-1:3000", to, null, "192.0.2.10");
      expect((await refusal(signed("GET", "/builds/abc/logs", headers))).detail).toMatch(
        /signed for another instance, or for this one before it restarted/,
      );
    }
    const headers = signPeerRequest("GET", "/builds/abc/logs", "build-1:3000", here(), null, "192.0.2.10");
    expect(
      (await refusal(signed("GET", "/builds/abc/logs", { ...headers, "x-instance-to": peerAddressee("x", "y") })))
        .detail,
    ).toMatch(/signature does not match/);
  });

  it("expire after 30 seconds, and are refused from the future as well", async () => {
    const now = Date.now();
    const headers = signPeerRequest("GET", "/builds/abc/logs", "build-1:3000", here(), null, "192.0.2.10", now);
    expect(await verifyPeerRequest(signed("GET", "/builds/abc/logs", headers), now + 29_000)).not.toBeNull();
    expect((await refusal(signed("GET", "/builds/abc/logs", headers), now + 31_000)).detail).toMatch(
      /older or newer than 30 s/,
    );
    expect((await refusal(signed("GET", "/builds/abc/logs", headers), now - 31_000)).status).toBe(401);
  });

  it("refuse a request with some of their headers only, or made with another secret", async () => {
    expect((await refusal(signed("GET", "/builds/abc/logs", { "x-instance-from": "build-1:3000" }))).detail).toMatch(
      /all required/,
    );
    const headers = signPeerRequest("GET", "/builds/abc/logs", "build-1:3000", here(), null, "192.0.2.10");
    process.env.NEXTAUTH_SECRET = "another-secret-that-the-cluster-does-not-share";
    resetEnvCache();
    try {
      expect((await refusal(signed("GET", "/builds/abc/logs", headers))).status).toBe(401);
    } finally {
      process.env.NEXTAUTH_SECRET = "a-secret-shared-by-every-instance-of-the-cluster";
      resetEnvCache();
    }
  });

  it("are served once: the same headers again within their 30 s are refused", async () => {
    const headers = signPeerRequest("DELETE", "/builds/abc", "build-1:3000", here(), identity, "192.0.2.10");
    expect(await verifyPeerRequest(signed("DELETE", "/builds/abc", headers))).not.toBeNull();
    expect((await refusal(signed("DELETE", "/builds/abc", headers))).detail).toMatch(/nonce was already used/);
    // The same request signed again carries another nonce.
    const again = signPeerRequest("DELETE", "/builds/abc", "build-1:3000", here(), identity, "192.0.2.10");
    expect(again["x-instance-nonce"]).not.toBe(headers["x-instance-nonce"]);
    expect(await verifyPeerRequest(signed("DELETE", "/builds/abc", again))).not.toBeNull();
  });

  it("may be checked twice for one request, which spends its nonce once", async () => {
    const request = signed(
      "GET",
      "/builds/abc/logs",
      signPeerRequest("GET", "/builds/abc/logs", "build-1:3000", here(), null, "192.0.2.10"),
    );
    expect(await verifyPeerRequest(request)).not.toBeNull();
    expect(await verifyPeerRequest(request)).not.toBeNull();
  });

  it("refuse another nonce put in place of the one signed, and a spent nonce however it is signed", async () => {
    const headers = signPeerRequest("GET", "/builds/abc/logs", "build-1:3000", here(), null, "192.0.2.10");
    expect(
      (await refusal(signed("GET", "/builds/abc/logs", { ...headers, "x-instance-nonce": "f".repeat(32) }))).detail,
    ).toMatch(/signature does not match/);
    expect(
      (await refusal(signed("GET", "/builds/abc/logs", { ...headers, "x-instance-nonce": "not hex" }))).detail,
    ).toMatch(/nonce/);
    // A refused copy spends nothing: the original is still served once.
    expect(await verifyPeerRequest(signed("GET", "/builds/abc/logs", headers))).not.toBeNull();
  });

  it("hold for the body they were made for, and for none when made without one", async () => {
    const body = new TextEncoder().encode('{"ttl_seconds":600}');
    const headers = signPeerRequest(
      "POST",
      "/builds/abc/extend",
      "build-1:3000",
      here(),
      identity,
      "192.0.2.10",
      Date.now(),
      body,
    );
    expect((await refusal(signed("POST", "/builds/abc/extend", headers, '{"ttl_seconds":86400}'))).detail).toMatch(
      /body is not the one signed/,
    );
    expect(
      await verifyPeerRequest(signed("POST", "/builds/abc/extend", headers, '{"ttl_seconds":600}')),
    ).not.toBeNull();
    const bodiless = signPeerRequest("POST", "/builds/abc/cancel", "build-1:3000", here(), identity, "192.0.2.10");
    expect((await refusal(signed("POST", "/builds/abc/cancel", bodiless, "anything"))).detail).toMatch(
      /body is not the one signed/,
    );
    // Another digest put in the header breaks the signature.
    expect(
      (
        await refusal(
          signed("POST", "/builds/abc/extend", { ...headers, "x-instance-body-sha256": "0".repeat(64) }, "x"),
        )
      ).detail,
    ).toMatch(/signature does not match/);
  });
});
