import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resetEnvCache } from "@/lib/env";
import { HttpProblem } from "@/lib/http/problem";
import { signPeerRequest, verifyPeerRequest } from "@/lib/cluster/peer-auth";

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

function signed(method: string, path: string, headers: Record<string, string>) {
  return new Request(`http://10.0.0.2:3000${path}`, { method, headers });
}

function refusal(request: Request, now?: number): HttpProblem {
  try {
    verifyPeerRequest(request, now);
  } catch (error) {
    return error as HttpProblem;
  }
  throw new Error("the request was accepted");
}

describe("instance-to-instance signatures", () => {
  it("carry the forwarding instance, the user it verified and the client's address", () => {
    const headers = signPeerRequest("POST", "/builds/abc/cancel", "build-1:3000", identity, "192.0.2.10");
    expect(verifyPeerRequest(signed("POST", "/builds/abc/cancel", headers))).toEqual({ from: "build-1:3000", identity, client: "192.0.2.10" });
  });

  it("carry no user for a public read", () => {
    const headers = signPeerRequest("GET", "/builds/abc/logs?stage=install", "build-1:3000", null, "192.0.2.10");
    expect(verifyPeerRequest(signed("GET", "/builds/abc/logs?stage=install", headers))?.identity).toBeNull();
  });

  it("are no concern of a request without any of their headers", () => {
    expect(verifyPeerRequest(signed("GET", "/builds/abc/logs", {}))).toBeNull();
  });

  it("hold for the method, path and query they were made for only", () => {
    const headers = signPeerRequest("GET", "/builds/abc/logs?stage=install", "build-1:3000", null, "192.0.2.10");
    expect(refusal(signed("GET", "/builds/abc/logs?stage=test", headers)).status).toBe(401);
    expect(refusal(signed("DELETE", "/builds/abc/logs?stage=install", headers)).status).toBe(401);
    expect(refusal(signed("GET", "/builds/other/logs?stage=install", headers)).detail).toMatch(/signature does not match/);
  });

  it("refuse another user, instance or client put in their place", () => {
    const headers = signPeerRequest("DELETE", "/builds/abc", "build-1:3000", identity, "192.0.2.10");
    for (const [name, value] of [["x-instance-user", "1 3b1f0c2a"], ["x-instance-from", "build-2:3000"], ["x-instance-client", "127.0.0.1"]]) {
      expect(refusal(signed("DELETE", "/builds/abc", { ...headers, [name]: value })).status).toBe(401);
    }
  });

  it("expire after 30 seconds, and are refused from the future as well", () => {
    const now = Date.now();
    const headers = signPeerRequest("GET", "/builds/abc/logs", "build-1:3000", null, "192.0.2.10", now);
    expect(verifyPeerRequest(signed("GET", "/builds/abc/logs", headers), now + 29_000)).not.toBeNull();
    expect(refusal(signed("GET", "/builds/abc/logs", headers), now + 31_000).detail).toMatch(/older or newer than 30 s/);
    expect(refusal(signed("GET", "/builds/abc/logs", headers), now - 31_000).status).toBe(401);
  });

  it("refuse a request with some of their headers only, or made with another secret", () => {
    expect(refusal(signed("GET", "/builds/abc/logs", { "x-instance-from": "build-1:3000" })).detail).toMatch(/all required/);
    const headers = signPeerRequest("GET", "/builds/abc/logs", "build-1:3000", null, "192.0.2.10");
    process.env.NEXTAUTH_SECRET = "another-secret-that-the-cluster-does-not-share";
    resetEnvCache();
    try {
      expect(refusal(signed("GET", "/builds/abc/logs", headers)).status).toBe(401);
    } finally {
      process.env.NEXTAUTH_SECRET = "a-secret-shared-by-every-instance-of-the-cluster";
      resetEnvCache();
    }
  });
});
