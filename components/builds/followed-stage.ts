import type { Stage } from "@/lib/swr/types";

/**
 * The stage whose log to show when the person has not picked one: the running stage (so the viewer moves
 * on as the build does), else the stage the build failed in, else one whose log still grows (the runtime's
 * own output while the preview runs), else the one that failed, else the one a cancel interrupted, else the
 * last that ran. A cancel marks the stages that never started "canceled" too: those have no start time and
 * no log, so they are never picked over one that ran. Stage names are whatever the build's driver has.
 */
export function followedStage(stages: Stage[], failureStage: string | null = null): Stage | undefined {
  const ran = (s: Stage) => s.started_at !== null;
  return (
    stages.find((s) => s.status === "running") ??
    stages.find((s) => s.name === failureStage && ran(s)) ??
    stages.find((s) => s.log_growing) ??
    stages.find((s) => s.status === "failed" && ran(s)) ??
    stages.find((s) => s.status === "canceled" && ran(s)) ??
    stages.find((s) => s.status === "failed") ??
    [...stages].reverse().find(ran) ??
    stages[0]
  );
}
