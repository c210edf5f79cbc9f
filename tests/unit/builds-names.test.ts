import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { MODULE_NAME_PATTERN, refProblem } from "@/lib/builds/names";
import { BUILD_STATUSES, canMove } from "@/lib/builds/status";

/** git's own verdict on a branch name. */
function gitAccepts(ref: string): boolean {
  try {
    execFileSync("git", ["check-ref-format", "--branch", ref], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

describe("refProblem", () => {
  const samples = [
    "main",
    "feature/x",
    "release-1.2",
    "v1.0.0",
    "a/b/c",
    "fix_123",
    "HEAD",
    "",
    "main..x",
    "a//b",
    "/a",
    "a/",
    "a.",
    ".hidden",
    "a/.b",
    "a.lock",
    "a/b.lock/c",
    "a b",
    "a~1",
    "a^",
    "a:b",
    "a?",
    "a*",
    "a[b",
    "a\\b",
    "a@{1}",
    "a\tb",
    "é-accent",
    "x@y",
  ];
  it.each(samples)("agrees with git check-ref-format --branch on %j", (ref) => {
    expect(refProblem(ref) === null).toBe(gitAccepts(ref));
  });

  // `git check-ref-format --branch @` expands @ to the current branch instead of judging it; as a ref it is refused.
  it("also refuses '@', a leading '-' and more than 200 characters", () => {
    expect(refProblem("@")).toMatch(/'@'/);
    expect(refProblem("-main")).toMatch(/'-'/);
    expect(refProblem("--upload-pack=x")).toMatch(/'-'/);
    expect(refProblem("a".repeat(200))).toBeNull();
    expect(refProblem("a".repeat(201))).toMatch(/200/);
  });
});

describe("module names", () => {
  it("are lowercase identifiers of at most 128 characters", () => {
    for (const name of ["sale", "sale_stock", "l10n_ve"]) expect(MODULE_NAME_PATTERN.test(name)).toBe(true);
    for (const name of ["Sale", "1sale", "sale-stock", "../x", "a".repeat(129), ""])
      expect(MODULE_NAME_PATTERN.test(name)).toBe(false);
  });
});

describe("build statuses", () => {
  it("only move forward: no status can be reached again from a later one, but for waking a sleeping build", () => {
    const order = (status: string) => BUILD_STATUSES.indexOf(status as (typeof BUILD_STATUSES)[number]);
    // The one cycle on purpose: sleep and wake (POST /builds/{id}/sleep, /wake) move between running and sleeping.
    const isWake = (from: string, to: string) => from === "sleeping" && to === "running";
    for (const from of BUILD_STATUSES) {
      for (const to of BUILD_STATUSES) {
        if (canMove(from, to) && !isWake(from, to)) expect(order(to)).toBeGreaterThan(order(from));
      }
    }
    expect(canMove("sleeping", "running")).toBe(true);
    expect(canMove("sleeping", "queued")).toBe(false);
    expect(canMove("running", "queued")).toBe(false);
    expect(canMove("destroyed", "running")).toBe(false);
    expect(canMove("installing", "canceled")).toBe(true);
  });
});
