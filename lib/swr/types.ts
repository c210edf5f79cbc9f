/**
 * The JSON shapes the dashboard reads, as the API contracts (issues 2 and 3) describe them. They mirror the
 * server's response schemas; the dashboard never sees anything the API does not send to every client.
 */

export interface Rate {
  dollar: number;
  date: string; // YYYY-MM-DD
}

export interface StoredRate extends Rate {
  id: number;
}

export interface RateHistory {
  start_date: string;
  end_date: string;
  /** Newest first. */
  rates: Rate[];
}

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

/** Statuses during which a build is still moving on its own: the dashboard polls while any build is in one. */
export const IN_PROGRESS_STATUSES: readonly BuildStatus[] = [
  "queued",
  "checking_out",
  "installing",
  "testing",
  "starting",
  "destroying",
];

export const STAGE_NAMES = ["checkout", "install", "test", "start", "healthcheck"] as const;
export type StageName = (typeof STAGE_NAMES)[number];
export type StageStatus = "pending" | "running" | "succeeded" | "failed" | "skipped" | "canceled";

export interface BuildRepository {
  repository: string;
  ref: string;
  commit_sha: string | null;
}

export interface Stage {
  name: StageName;
  status: StageStatus;
  started_at: string | null;
  finished_at: string | null;
  duration_ms: number | null;
  exit_code: number | null;
}

export interface BuildSummary {
  build_id: string;
  status: BuildStatus;
  repositories: BuildRepository[];
  modules: string[];
  ttl_seconds: number;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  expires_at: string | null;
  queue_position?: number | null;
  preview_url?: string | null;
  failure_stage?: string | null;
  failure_message?: string | null;
  created_by?: string | number | null;
}

export interface Build extends BuildSummary {
  stages: Stage[];
}

export interface BuildList {
  builds: BuildSummary[];
  next_cursor: string | null;
}

export interface AppConfigRepository {
  alias: string;
  default_ref: string;
  allow_request_ref: boolean;
  priority: number;
  ready: boolean;
  modules: string[];
}

export interface AppConfig {
  version: string;
  repositories: AppConfigRepository[];
  ttl: { default_seconds: number; min_seconds: number; max_seconds: number; choices: number[] };
  max_concurrent_builds: number;
  max_repositories: number;
  max_modules: number;
}

export interface StageLogPage {
  build_id: string;
  stage: StageName;
  offset: number;
  next_offset: number;
  size: number;
  content: string;
  truncated: boolean;
  complete: boolean;
}

/** An RFC 9457 problem body, as every error of the API answers. */
export interface Problem {
  type?: string;
  title: string;
  status: number;
  detail: string;
  errors?: { field: string; message: string }[];
}
