import { describe, expect, it } from "vitest";
import { followedStage } from "@/components/builds/followed-stage";
import type { Stage } from "@/lib/swr/types";

const at = "2026-11-23T05:00:00.000Z";
/** A stage as the API lists it; `ran` gives it a start time. */
const stage = (name: string, status: string, ran: boolean, logGrowing = status === "running"): Stage =>
  ({
    name,
    status,
    started_at: ran ? at : null,
    finished_at: null,
    duration_ms: null,
    exit_code: null,
    log_growing: logGrowing,
  }) as unknown as Stage;

describe("the stage a build's drawer opens on", () => {
  it("a build canceled during install opens on install, not on a later stage the cancel closed", () => {
    const stages = [
      stage("checkout", "succeeded", true),
      stage("install", "canceled", true),
      stage("test", "canceled", false),
      stage("start", "canceled", false),
      stage("healthcheck", "canceled", false),
    ];
    expect(followedStage(stages)?.name).toBe("install");
  });

  it("follows the running stage, else the failed one, else the last that ran, whatever the driver's stage names", () => {
    const compose = ["checkout", "render", "validate", "database", "install", "test", "start", "healthcheck"];
    const running = compose.map((name, i) =>
      stage(name, i < 3 ? "succeeded" : i === 3 ? "running" : "pending", i <= 3),
    );
    expect(followedStage(running)?.name).toBe("database");
    const failed = compose.map((name, i) => stage(name, i < 5 ? "succeeded" : i === 5 ? "failed" : "skipped", i <= 5));
    expect(followedStage(failed)?.name).toBe("test");
    const done = compose.map((name) => stage(name, "succeeded", true));
    expect(followedStage(done)?.name).toBe("healthcheck");
    const canceledInQueue = compose.map((name) => stage(name, "canceled", false));
    expect(followedStage(canceledInQueue)?.name).toBe("checkout");
  });

  it("a running preview opens on the runtime's own output, which still grows, not on the last stage that ran", () => {
    const stages = ["checkout", "install", "test", "start", "healthcheck"].map((name) =>
      stage(name, "succeeded", true, name === "start"),
    );
    expect(followedStage(stages)?.name).toBe("start");
  });

  it("a failed build opens on the stage it failed in, even when another stage also reads failed", () => {
    const stages = [
      stage("checkout", "succeeded", true),
      stage("install", "failed", true),
      stage("test", "succeeded", true),
      stage("start", "succeeded", true),
      stage("healthcheck", "failed", true),
    ];
    expect(followedStage(stages, "healthcheck")?.name).toBe("healthcheck");
    // A failure outside the stages (a restart's recovery) falls back to the first failed stage that ran.
    expect(followedStage(stages, "recovery")?.name).toBe("install");
  });
});
