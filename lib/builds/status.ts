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
  "failed",
  "canceled",
  "expired",
  "destroying",
  "destroyed",
] as const;
export type BuildStatus = (typeof BUILD_STATUSES)[number];

export const STAGE_NAMES = ["checkout", "install", "test", "start", "healthcheck"] as const;
export type StageName = (typeof STAGE_NAMES)[number];

export const STAGE_STATUSES = ["pending", "running", "succeeded", "failed", "skipped", "canceled"] as const;
export type StageStatus = (typeof STAGE_STATUSES)[number];

const ALLOWED_MOVES: Record<BuildStatus, readonly BuildStatus[]> = {
  queued: ["checking_out", "canceled", "failed"],
  checking_out: ["installing", "failed", "canceled"],
  installing: ["testing", "failed", "canceled"],
  testing: ["starting", "failed", "canceled"],
  starting: ["running", "failed", "canceled"],
  // A running build whose runtime died is failed: by the reaper, or by the recovery after a restart.
  running: ["expired", "destroying", "failed"],
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

/** The build status while a stage runs. */
export const STATUS_OF_STAGE: Record<StageName, BuildStatus> = {
  checkout: "checking_out",
  install: "installing",
  test: "testing",
  start: "starting",
  healthcheck: "starting",
};

export function isInProgress(status: BuildStatus): boolean {
  return IN_PROGRESS_STATUSES.includes(status);
}

export function isStageOver(status: StageStatus): boolean {
  return status !== "pending" && status !== "running";
}
