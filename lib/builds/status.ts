/**
 * Build and stage statuses. A build's status only moves forward, along the moves in this one table; every
 * status change goes through `canMove` (lib/builds/repository.ts updates a row only from the status it read).
 */
export const BUILD_STATUSES = [
  "queued",
  "checking_out",
  "installing",
  "testing",
  "starting",
  "running",
  "sleeping",
  "failed",
  "canceled",
  "expired",
  "destroying",
  "destroyed",
] as const;
export type BuildStatus = (typeof BUILD_STATUSES)[number];

/** A stage's name: each driver has its own list (lib/builds/runtime/drivers), which a build keeps from its creation. */
export type StageName = string;

export const STAGE_STATUSES = ["pending", "running", "succeeded", "failed", "skipped", "canceled"] as const;
export type StageStatus = (typeof STAGE_STATUSES)[number];

const ALLOWED_MOVES: Record<BuildStatus, readonly BuildStatus[]> = {
  queued: ["checking_out", "canceled", "failed"],
  checking_out: ["installing", "failed", "canceled"],
  installing: ["testing", "failed", "canceled"],
  testing: ["starting", "failed", "canceled"],
  starting: ["running", "failed", "canceled"],
  // A running build whose runtime died is failed: by the reaper, or by the recovery after a restart.
  running: ["expired", "destroying", "failed", "sleeping"],
  // A sleeping build's runtime is stopped with its data kept (POST /builds/{id}/sleep); its time to live goes
  // on counting. A wake brings it back to running, or fails it when the runtime does not come back healthy.
  sleeping: ["running", "expired", "destroying", "failed"],
  failed: ["destroying"],
  canceled: ["destroying"],
  expired: ["destroying"],
  destroying: ["destroyed"],
  destroyed: [],
};

export function canMove(from: BuildStatus, to: BuildStatus): boolean {
  return ALLOWED_MOVES[from].includes(to);
}

/** Statuses in which the build's stages are being worked on. */
export const IN_PROGRESS_STATUSES: readonly BuildStatus[] = ["checking_out", "installing", "testing", "starting"];

export function isInProgress(status: BuildStatus): boolean {
  return IN_PROGRESS_STATUSES.includes(status);
}

export function isStageOver(status: StageStatus): boolean {
  return status !== "pending" && status !== "running";
}

/**
 * Whether a stage's log can still grow: the stage runs, or it is `start`, whose log is the runtime's own
 * output and grows for as long as the runtime lives (the preview's log while the build runs).
 */
export function isStageLogGrowing(buildStatus: BuildStatus, stageName: string, stageStatus: StageStatus): boolean {
  if (!isStageOver(stageStatus)) return true;
  const runtimeMayWrite: BuildStatus[] = ["starting", "running", "destroying"];
  return stageName === "start" && runtimeMayWrite.includes(buildStatus);
}
