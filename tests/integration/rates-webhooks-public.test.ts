import { execFileSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * POST /rates/webhooks with public IPv4 and IPv6 addresses. A subscription may lead to deliveries, and a test never
 * sends to a public address: the app runs in a network namespace of its own holding only loopback (`unshare -n`,
 * as root), driven by tests/support/public-webhooks-in-loopback.ts, where a connection to any other address fails
 * at once.
 */
const projectRoot = path.resolve(import.meta.dirname, "..", "..");

describe("POST /rates/webhooks to public addresses (in a loopback-only network namespace)", () => {
  it("subscribes public IPv4 and IPv6 receivers, and still refuses private ones", { timeout: 120_000 }, () => {
    const urls = [
      "http://1.1.1.1/hook",
      "https://8.8.8.8:8443/hook",
      "http://[2606:4700::1111]/hook",
      "http://[::ffff:9.9.9.9]/hook",
      "http://10.0.0.1/hook",
      "http://[::ffff:192.168.1.1]/hook",
    ];
    const script = path.join("tests", "support", "public-webhooks-in-loopback.ts");
    const output = execFileSync(
      "unshare",
      ["-n", "sh", "-c", 'ip link set lo up && exec node_modules/.bin/tsx "$@"', "sh", script, ...urls],
      { cwd: projectRoot, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"], timeout: 110_000 },
    );
    const { interfaces, answers } = JSON.parse(output.trim().split("\n").pop()!) as {
      interfaces: string[];
      answers: { url: string; status: number; detail?: string }[];
    };
    expect(interfaces).toEqual(["lo"]);
    expect(answers.map(({ url, status }) => [url, status])).toEqual([
      ["http://1.1.1.1/hook", 201],
      ["https://8.8.8.8:8443/hook", 201],
      ["http://[2606:4700::1111]/hook", 201],
      ["http://[::ffff:9.9.9.9]/hook", 201],
      ["http://10.0.0.1/hook", 400],
      ["http://[::ffff:192.168.1.1]/hook", 400],
    ]);
    expect(answers[4].detail).toContain("10.0.0.1, a private network");
    expect(answers[5].detail).toContain("a private network");
  });
});
