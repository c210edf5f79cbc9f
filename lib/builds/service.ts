import type { z } from "zod";
import { badRequest, notFound, serviceUnavailable } from "../http/problem";
import { getBuildsConfig } from "./config";
import { listForgeReports } from "./forge/reports";
import { isRepositoryReady, listBranchHeads, modulesAtDefaultRef, syncMirror } from "./git/mirrors";
import { type Actor, canActOnBuild } from "./permissions";
import {
  type BuildRecord,
  findBuild,
  findBuildSeq,
  listBuildRecords,
  listLiveFirstRefs,
  listQueuedSeqs,
  queuePosition,
} from "./repository";
import { configuredDriver } from "./runtime/drivers";
import {
  type AppConfigView,
  type BuildView,
  type branchQuerySchema,
  type listBuildsQuerySchema,
  MAX_MODULES,
  MAX_REPOSITORIES,
} from "./schemas";
import { toBuildSummary, toBuildView } from "./views";
import {
  type BuildViewer,
  effectivePreviewAccess,
  isBuildVisible,
  listableFirstRepositories,
  mayViewBuild,
  noSuchBuild,
} from "./visibility";

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
  const view = toBuildView(build, position, reports, await liveRefsFor());
  return viewer === undefined ? view : { ...view, viewer_can_change: viewer !== null && canActOnBuild(viewer, build) };
}

/** The live refs a branch's readable name must not clash with: asked only with a gateway, where builds have names. */
async function liveRefsFor(): Promise<Map<string, string[]>> {
  return getBuildsConfig().gateway ? listLiveFirstRefs() : new Map();
}

export async function requireBuild(buildId: string): Promise<BuildRecord> {
  const build = await findBuild(buildId);
  if (!build) throw noSuchBuild(buildId);
  return build;
}

/**
 * A build as `viewer` may see it: null, a stranger, gets a private build's 404 (lib/builds/visibility.ts);
 * undefined, the service itself, sees every build.
 */
export async function getBuild(buildId: string, viewer?: Actor | null): Promise<BuildView> {
  const build = await requireBuild(buildId);
  if (viewer !== undefined && !mayViewBuild(effectivePreviewAccess(build), viewer)) throw noSuchBuild(buildId);
  return presentBuild(build, viewer);
}

/** Builds newest first, without stages, those `viewer` may see; `cursor` is the last build_id of the previous page. */
export async function listBuilds(query: z.output<typeof listBuildsQuerySchema>, viewer: BuildViewer) {
  let beforeSeq: number | undefined;
  if (query.cursor !== undefined) {
    const seq = await findBuildSeq(query.cursor);
    if (seq === null || !(await isBuildVisible(query.cursor, viewer))) {
      throw badRequest("The cursor does not name a build; use the next_cursor of the previous page.", [
        { field: "query.cursor", message: "unknown build_id" },
      ]);
    }
    beforeSeq = seq;
  }
  const records = await listBuildRecords({
    status: query.status,
    limit: query.limit + 1,
    beforeSeq,
    firstRepositoryIn: listableFirstRepositories(viewer),
  });
  const page = records.slice(0, query.limit);
  const queued = await listQueuedSeqs();
  const liveRefs = await liveRefsFor();
  return {
    builds: page.map((build) => toBuildSummary(build, queued.indexOf(build.seq) + 1 || null, liveRefs)),
    next_cursor: records.length > query.limit ? page[page.length - 1].id : null,
  };
}

/**
 * GET /builds/repositories/{alias}/branches: the repository's branches as its mirror has them, fetched first (as
 * POST /builds would), so a branch pushed a moment ago is offered; the last fetched ones when the repository cannot
 * be reached now. What the build form offers as the ref is typed.
 */
// As git lists them: by code point, not by a locale's collation, which would put `feature_x` before `feature/x`.
const byCodePoint = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export async function listRepositoryBranches(alias: string, query: z.output<typeof branchQuerySchema>) {
  const config = getBuildsConfig();
  const repository = config.repositories.find((candidate) => candidate.alias === alias);
  if (!repository)
    throw notFound(`No repository is named ${JSON.stringify(alias.slice(0, 80))} in the builds configuration.`);
  await syncMirror(config, repository);
  const branches = await listBranchHeads(config, alias);
  if (!branches) throw serviceUnavailable(`The repository "${alias}" is not ready: its mirror could not be read.`, 30);
  const text = query.q?.toLowerCase() ?? "";
  const rank = (name: string) => (name === repository.default_ref ? 0 : name.toLowerCase().startsWith(text) ? 1 : 2);
  const matching = branches
    .filter((branch) => branch.name.toLowerCase().includes(text))
    .sort((a, b) => rank(a.name) - rank(b.name) || byCodePoint(a.name, b.name));
  return {
    repository: alias,
    default_ref: repository.default_ref,
    branches: matching.slice(0, query.limit).map((branch) => ({ name: branch.name, commit_sha: branch.commitSha })),
    truncated: matching.length > query.limit,
  };
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
