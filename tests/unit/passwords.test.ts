import { describe, expect, it } from "vitest";
import { hashPassword, passwordMatches } from "@/lib/users/passwords";

/** Counts how often a 1 ms timer fires while `work` runs: how free the event loop stayed meanwhile. */
async function loopTicksDuring(work: () => Promise<unknown>): Promise<{ ticks: number; elapsedMs: number }> {
  let ticks = 0;
  const timer = setInterval(() => ticks++, 1);
  const started = performance.now();
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  return { ticks, elapsedMs: performance.now() - started };
}

// One hash for the tests that need one: each costs a quarter of a second at cost 12.
const hashed = hashPassword("correct horse battery");

describe("password hashes", () => {
  it("are bcrypt at cost 12, match their password only, and an unknown user never matches", async () => {
    const hash = await hashed;
    expect(hash).toMatch(/^\$2b\$12\$/);
    expect(await passwordMatches("correct horse battery", hash)).toBe(true);
    expect(await passwordMatches("correct horse batterY", hash)).toBe(false);
    expect(await passwordMatches("not-a-real-password", undefined)).toBe(false);
  });

  it("still verify hashes written by bcryptjs before (the same $2a$/$2b$ format)", async () => {
    // "secret password", hashed by bcryptjs 3 at cost 12.
    const fromBcryptjs = "$2b$12$VScV6umXsW3Fi9OiITvNkek2l0wQK6ZBuwcpiDHdXchKCHf5wAxY2";
    expect(await passwordMatches("secret password", fromBcryptjs)).toBe(true);
    expect(await passwordMatches("secret passworD", fromBcryptjs)).toBe(false);
  });

  it("leave the event loop free while they run (the work is on the thread pool)", async () => {
    const hash = await hashed;
    // Two comparisons at once, as from two clients. On the event loop (bcryptjs, in slices of up to 100 ms),
    // the 1 ms timer fired about once per 100 ms; off it, nearly every millisecond on an idle machine. The bound
    // sits between the two with room for a loaded machine's scheduling.
    const { ticks, elapsedMs } = await loopTicksDuring(() =>
      Promise.all([passwordMatches("a", hash), passwordMatches("b", hash)]),
    );
    expect(elapsedMs).toBeGreaterThan(50);
    expect(ticks).toBeGreaterThan(elapsedMs / 20);
  });
});
