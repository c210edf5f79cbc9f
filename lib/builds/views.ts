import type { Build, BuildRepository, BuildStage, ForgeReport } from "@prisma/client";
import { getTopology, hostPartOf } from "../topology";
import { fillPreviewTemplate, getBuildsConfig } from "./config";
import { nameUrl, previewNamesOf } from "./preview-names";
import type { BuildSummaryView, BuildTrigger, BuildView } from "./schemas";
import { type BuildStatus, isStageLogGrowing, type StageName, type StageStatus } from "./status";
import { effectivePreviewAccess } from "./visibility";

/** What a build's branch name ends in: its bundle's name for a bundle's build of a branch, else its first repository's alias. */
const nameOwnerOf = (build: { bundle: string | null; branch: string | null; repositories: { alias: string }[] }) =>
  build.bundle && build.branch ? build.bundle : (build.repositories[0]?.alias ?? "");

/** The API's view of a build record. `queuePosition` is computed by the caller from the queued builds. */
const iso = (date: Date | null) => (date ? date.toISOString() : null);

/**
 * `liveRefs`: the refs of the live builds by what their names end in, a first repository's alias or a bundle's name
 * (repository.ts listLiveFirstRefs), which a branch's readable name must not clash with.
 */
export function toBuildSummary(
  build: Build & { repositories: BuildRepository[] },
  queuePosition: number | null = null,
  liveRefs: ReadonlyMap<string, readonly string[]> = new Map(),
): BuildSummaryView {
  const status = build.status as BuildStatus;
  const { gateway } = getBuildsConfig();
  return {
    build_id: build.id,
    status,
    repositories: build.repositories.map((r) => ({
      repository: r.alias,
      ref: r.ref,
      commit_sha: r.commitSha,
      commit_subject: r.commitSubject,
      commit_author: r.commitAuthor,
      ref_reason: (r.refReason ?? null) as BuildSummaryView["repositories"][number]["ref_reason"],
    })),
    modules: build.modules === "" ? [] : build.modules.split(","),
    ttl_seconds: build.ttlSeconds,
    created_at: build.createdAt.toISOString(),
    started_at: iso(build.startedAt),
    finished_at: iso(build.finishedAt),
    expires_at: iso(build.expiresAt),
    queue_position: status === "queued" ? queuePosition : null,
    // Only a build with a runtime has something to preview (without a `start` command it runs install and test only).
    preview_url:
      status === "running" && build.port != null && build.runtimeHandle != null
        ? gateway
          ? nameUrl(gateway, `${build.id}.${gateway.domain}`)
          : fillPreviewTemplate(
              getBuildsConfig().preview_url,
              build.id,
              build.port,
              hostPartOf(build.host ?? getTopology().instanceName()),
            )
        : null,
    preview_names: gateway ? previewNamesOf(gateway, build, liveRefs.get(nameOwnerOf(build))) : [],
    preview_access: gateway ? effectivePreviewAccess(build) : null,
    host: build.host,
    failure_stage: build.failureStage,
    failure_message: build.failureMessage,
    created_by: build.createdBy,
    trigger: build.trigger as BuildTrigger,
    triggered_by: build.triggeredBy,
    bundle: build.bundle ?? null,
    branch: build.branch ?? null,
    log_checks: { errors: build.logErrors ?? 0, warnings: build.logWarnings ?? 0 },
  };
}

export function toBuildView(
  build: Build & { repositories: BuildRepository[]; stages: BuildStage[] },
  queuePosition: number | null = null,
  forgeReports: ForgeReport[] = [],
  liveRefs: ReadonlyMap<string, readonly string[]> = new Map(),
): BuildView {
  return {
    ...toBuildSummary(build, queuePosition, liveRefs),
    forge_reports: forgeReports.map((report) => ({
      repository: report.alias,
      kind: report.kind as "status" | "comment",
      state: report.state,
      description: report.description,
      outcome: report.outcome as "sent" | "failed",
      attempts: report.attempts,
      error: report.error,
      at: report.createdAt.toISOString(),
    })),
    stages: build.stages.map((stage) => ({
      name: stage.name as StageName,
      status: stage.status as StageStatus,
      started_at: iso(stage.startedAt),
      finished_at: iso(stage.finishedAt),
      duration_ms: stage.startedAt && stage.finishedAt ? stage.finishedAt.getTime() - stage.startedAt.getTime() : null,
      exit_code: stage.exitCode,
      cached: stage.cached,
      log_growing: isStageLogGrowing(build.status as BuildStatus, stage.name, stage.status as StageStatus),
    })),
  };
}
