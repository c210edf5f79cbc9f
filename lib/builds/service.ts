import type { z } from "zod";
import { conflict, notFound, serviceUnavailable, unprocessable } from "../http/problem";
import { getBuildsConfig } from "./config";
import { listForgeReports } from "./forge/reports";
import { isRepositoryReady, modulesAtDefaultRef } from "./git/mirrors";
import { type Actor, assertCanActOnBuild, canActOnBuild } from "./permissions";
import { destroyRuntime, stopActiveBuild } from "./queue/executor";
import {
  type BuildRecord,
  closeOpenStages,
  findBuild,
  findBuildSeq,
  listBuildRecords,
  listQueuedSeqs,
  moveBuild,
  queuePosition,
} from "./repository";
import { RuntimeUnavailableError } from "./runtime/driver";
import { configuredDriver } from "./runtime/drivers";
import {
  type AppConfigView,
  type BuildView,
  type listBuildsQuerySchema,
  MAX_MODULES,
  MAX_REPOSITORIES,
} from "./schemas";
import { type BuildStatus, isInProgress } from "./status";
import { toBuildSummary, toBuildView } from "./views";

export const APP_VERSION = "0.2.0";

/** A build with its queue position (1 = next to run) while it is queued. */
/**
 * A build as the API shows it. `viewer`: who asks (null for nobody signed in); when given, the answer says
 * whether they may change the build (`viewer_can_change`), so that a client offers only the actions that work.
 */
export async function presentBuild(build: BuildRecord, viewer?: Actor | null): Promise<BuildView> {
  const position = build.status === "queued" ? await queuePosition(build.seq) : null;
  // Only builds of a repository with a git host configured can have reports: the others skip the query.
  const forges = new Set(
    getBuildsConfig()
      .repositories.filter((r) => r.forge)
      .map((r) => r.alias),
  );
  const reports = build.repositories.some((r) => forges.has(r.alias)) ? await listForgeReports(build.id) : [];
  const view = toBuildView(build, position, reports);
  return viewer === undefined ? view : { ...view, viewer_can_change: viewer !== null && canActOnBuild(viewer, build) };
}

export async function requireBuild(buildId: string): Promise<BuildRecord> {
  const build = await findBuild(buildId);
  if (!build) throw notFound(`There is no build ${JSON.stringify(buildId.slice(0, 80))}.`);
  return build;
}

export async function getBuild(buildId: string, viewer?: Actor | null): Promise<BuildView> {
  return presentBuild(await requireBuild(buildId), viewer);
}

/** Builds newest first, without stages; `cursor` is the last build_id of the previous page. */
export async function listBuilds(query: z.output<typeof listBuildsQuerySchema>) {
  let beforeSeq: number | undefined;
  if (query.cursor !== undefined) {
    const seq = await findBuildSeq(query.cursor);
    if (seq === null) {
      throw unprocessable("The cursor does not name a build; use the next_cursor of the previous page.", [
        { field: "query.cursor", message: "unknown build_id" },
      ]);
    }
    beforeSeq = seq;
  }
  const records = await listBuildRecords({ status: query.status, limit: query.limit + 1, beforeSeq });
  const page = records.slice(0, query.limit);
  const queued = await listQueuedSeqs();
  return {
    builds: page.map((build) => toBuildSummary(build, queued.indexOf(build.seq) + 1 || null)),
    next_cursor: records.length > query.limit ? page[page.length - 1].id : null,
  };
}

/**
 * POST /builds/{id}/cancel: stops a queued or in-progress build. The status becomes `canceled` first, so the
 * executor cannot move it further; then the executor stops the stage's process group and destroys the runtime.
 */
export async function cancelBuild(buildId: string, user: Actor): Promise<BuildView> {
  for (;;) {
    const build = await requireBuild(buildId);
    assertCanActOnBuild(user, build);
    const status = build.status as BuildStatus;
    if (status !== "queued" && !isInProgress(status)) {
      const hint = status === "running" ? " It is running: DELETE /builds/{id} destroys its runtime." : "";
      throw conflict(
        `Build ${buildId} is already over (${status}); there is nothing to cancel.${hint}`.replace("{id}", buildId),
      );
    }
    // Only from the status just read: if the executor moved the build meanwhile, read it again.
    if (!(await moveBuild(buildId, status, "canceled", { finishedAt: new Date() }))) continue;
    const stopped = status !== "queued" && (await stopActiveBuild(buildId));
    if (!stopped) {
      // Nobody is working on it (queued, or between two steps): close it here.
      await destroyRuntime(buildId);
      await closeOpenStages(buildId, "canceled", "canceled", new Date());
    }
    return getBuild(buildId, user);
  }
}

/**
 * DELETE /builds/{id}: destroys the runtime of a build that is over (stops its processes, frees its port,
 * removes its runtime files, keeps the logs). Deleting a destroyed build answers it again.
 */
export async function destroyBuild(buildId: string, user: Actor): Promise<BuildView> {
  for (;;) {
    const build = await requireBuild(buildId);
    assertCanActOnBuild(user, build);
    const status = build.status as BuildStatus;
    if (status === "destroyed") return presentBuild(build, user);
    if (status === "queued" || isInProgress(status)) {
      throw conflict(`Build ${buildId} is ${status}; cancel it first with POST /builds/${buildId}/cancel.`);
    }
    if (status !== "destroying" && !(await moveBuild(buildId, status, "destroying"))) continue;
    try {
      await destroyRuntime(buildId);
    } catch (error) {
      if (!(error instanceof RuntimeUnavailableError)) throw error;
      throw serviceUnavailable(`Build ${buildId} stays destroying: ${error.message} It is tried again shortly.`, 30);
    }
    await moveBuild(buildId, "destroying", "destroyed");
    return getBuild(buildId, user);
  }
}

/**
 * DELETE of a build whose host is lost (no heartbeat for INSTANCE_LOST_AFTER_SECONDS; lib/cluster/forwarding.ts):
 * its runtime and logs are on a machine no instance reaches, maybe never again. The build is destroyed in the
 * database, so that it stops counting as live and showing as running; its port and runtime handles stay recorded,
 * and the host, if it comes back, removes what it left (its reaper's retryUnfinishedDestroys takes destroyed
 * builds that still hold them). Its runtime is never touched from here: it is another machine's.
 */
export async function destroyBuildOfLostHost(buildId: string, user: Actor, host: string): Promise<BuildView> {
  for (;;) {
    const build = await requireBuild(buildId);
    assertCanActOnBuild(user, build);
    const status = build.status as BuildStatus;
    if (status === "destroyed") return presentBuild(build, user);
    if (status === "queued" || isInProgress(status)) {
      // The heartbeat of any instance fails the builds a lost host had in progress, within a few seconds.
      throw conflict(
        `Build ${buildId} is ${status} on ${host}, which is lost; it is failed within seconds, then it can be destroyed.`,
      );
    }
    if (status !== "destroying" && !(await moveBuild(buildId, status, "destroying"))) continue;
    if (!(await moveBuild(buildId, "destroying", "destroyed"))) continue;
    return getBuild(buildId, user);
  }
}

/** GET /app-config: what a client needs to offer a build; never the repositories' URLs. */
export async function getAppConfig(): Promise<AppConfigView> {
  const config = getBuildsConfig();
  const driver = configuredDriver(config);
  const readiness = await driver.readiness(config);
  const repositories = await Promise.all(
    config.repositories.map(async (repository) => ({
      alias: repository.alias,
      default_ref: repository.default_ref,
      allow_request_ref: repository.allow_request_ref,
      priority: repository.priority,
      ready: isRepositoryReady(repository.alias),
      modules: (await modulesAtDefaultRef(config, repository).catch(() => null)) ?? [],
      auto_build: repository.auto_build
        ? {
            branches: repository.auto_build.branches,
            modules: repository.auto_build.modules,
            ttl_seconds: repository.auto_build.ttl_seconds ?? config.ttl.default_seconds,
            webhook: repository.webhookSecret !== null,
            watch_interval_seconds: repository.watch_interval_seconds ?? null,
          }
        : null,
    })),
  );
  return {
    version: APP_VERSION,
    repositories,
    ttl: { ...config.ttl },
    max_concurrent_builds: config.max_concurrent_builds,
    runtime: {
      driver: driver.name,
      ready: readiness.ready,
      reason: readiness.ready ? null : readiness.reason,
      stages: driver.stages.map((stage) => stage.name),
    },
    max_repositories: MAX_REPOSITORIES,
    max_modules: MAX_MODULES,
  };
}
