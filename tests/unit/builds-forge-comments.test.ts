import { describe, expect, it } from "vitest";
import { type BuildEnding, type CommentSubject, commentStateOf, commentText } from "../../lib/builds/forge/comments";
import { forgeStateOf } from "../../lib/builds/forge/statuses";

// What the pull request's one comment says at each status of its newest build: always where the
// preview is now, while the commit status stays the build's verdict on the commit.
const NOW = new Date("2026-11-24T12:00:00Z");
const PAST = new Date("2026-11-24T11:00:00Z");
const FUTURE = new Date("2026-11-24T13:00:00Z");
const ran: BuildEnding = { failureStage: null, failureMessage: null, expiresAt: FUTURE };
const neverRan: BuildEnding = { failureStage: null, failureMessage: null, expiresAt: null };
const subject = (ending: BuildEnding, keptUntil: Date | null = null): CommentSubject => ({
  buildId: "0123456789abcdef",
  seq: 1,
  alias: "hub",
  ref: "refs/pull/7/head",
  number: 7,
  commitSha: "a".repeat(40),
  keptUntil,
  ...ending,
});
const LINK = "https://runbot.example.test/builds/0123456789abcdef";

describe("the pull request comment's state", () => {
  it("follows the preview through its life", () => {
    expect(commentStateOf("queued", neverRan, NOW)).toBe("queued");
    for (const status of ["checking_out", "installing", "testing", "starting"] as const)
      expect(commentStateOf(status, neverRan, NOW)).toBe("building");
    expect(commentStateOf("running", ran, NOW)).toBe("running");
    expect(commentStateOf("sleeping", ran, NOW)).toBe("sleeping");
    expect(commentStateOf("expired", { ...ran, expiresAt: PAST }, NOW)).toBe("expired");
    expect(commentStateOf("canceled", neverRan, NOW)).toBe("canceled");
    expect(commentStateOf("failed", { ...neverRan, failureStage: "test" }, NOW)).toBe("failure");
    expect(commentStateOf("failed", { ...neverRan, failureStage: "recovery" }, NOW)).toBe("lost");
    // Passing: the destroyed that follows says it.
    expect(commentStateOf("destroying", ran, NOW)).toBeNull();
  });

  it("once destroyed, still says why the preview ended", () => {
    expect(commentStateOf("destroyed", ran, NOW)).toBe("destroyed");
    expect(commentStateOf("destroyed", { ...ran, expiresAt: PAST }, NOW)).toBe("expired");
    expect(commentStateOf("destroyed", neverRan, NOW)).toBe("canceled");
    expect(commentStateOf("destroyed", { ...ran, failureStage: "start" }, NOW)).toBe("failure");
    expect(commentStateOf("destroyed", { ...neverRan, failureStage: "recovery" }, NOW)).toBe("lost");
  });

  it("leaves the commit status alone when a passed preview sleeps, expires or is destroyed", () => {
    for (const status of ["sleeping", "expired", "destroying", "destroyed"] as const)
      expect(forgeStateOf(status, null)).toBeNull();
    expect(forgeStateOf("running", null)).toEqual({ state: "success", description: "Preview running" });
  });
});

describe("the pull request comment's text", () => {
  it("running: the link to the build", () => {
    expect(commentText(subject(ran), "running", LINK)).toMatch(
      /^\*\*Preview\*\* of `aaaaaaaaaaaa`: ✅ the preview is running — \[build 0123456789abcdef\]\(https:\/\/runbot\.example\.test\/builds\/0123456789abcdef\)\n/,
    );
  });

  it("sleeping: stopped with its data kept, and how to wake it", () => {
    expect(commentText(subject(ran), "sleeping", LINK)).toContain(
      "💤 the preview is sleeping (stopped, its data kept); it can be woken from the build's page — [build",
    );
  });

  it("expired: when its time to live ended, and how long its page is kept", () => {
    const text = commentText(subject({ ...ran, expiresAt: PAST }, new Date("2026-12-24T11:00:05Z")), "expired", LINK);
    expect(text).toContain(
      "⌛ expired: its time to live ended at 2026-11-24 11:00 UTC, so the preview was destroyed — [build",
    );
    expect(text).toContain("/builds/0123456789abcdef). Its page and logs are kept until 2026-12-24 11:00 UTC.\n");
  });

  it("destroyed on request before its time", () => {
    expect(commentText(subject(ran), "destroyed", LINK)).toContain(
      "🗑️ the preview was destroyed on request, before its time to live ended",
    );
  });

  it("failed: the stage; a runtime that died or did not wake is said as such", () => {
    expect(commentText(subject({ ...neverRan, failureStage: "test" }), "failure", LINK)).toContain(
      "❌ failed at stage test —",
    );
    expect(commentText(subject({ ...neverRan, failureStage: "start" }), "failure", LINK)).toContain(
      "❌ failed at stage start —",
    );
    expect(commentText(subject({ ...ran, failureStage: "start" }), "failure", LINK)).toContain(
      "❌ the preview stopped: its runtime exited while it was running —",
    );
    expect(commentText(subject({ ...ran, failureStage: "wake" }), "failure", LINK)).toContain(
      "❌ the preview did not come back when it was woken —",
    );
  });

  it("lost: the service's own reason, a restart or a lost host", () => {
    const message =
      "The host runbot-2 running the build was lost: its last heartbeat was at 2026-11-24T11:59:00.000Z. The build was not resumed.";
    expect(
      commentText(subject({ ...neverRan, failureStage: "recovery", failureMessage: message }), "lost", LINK),
    ).toContain(`⚠️ lost: ${message} —`);
  });

  it("canceled, and no retention note while the preview may still run", () => {
    expect(commentText(subject(neverRan, FUTURE), "canceled", null)).toContain(
      "⏹️ canceled — build 0123456789abcdef. Its page and logs are kept until",
    );
    expect(commentText(subject(ran, FUTURE), "running", LINK)).not.toContain("kept until");
  });
});
