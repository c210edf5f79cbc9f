import crypto from "node:crypto";
import picomatch from "picomatch";
import { processWide } from "../../server/process-wide";
import { getTopology } from "../../topology";
import { cancelBuild } from "../actions/cancel";
import { destroyBuild } from "../actions/destroy";
import { BRANCH_GLOB_OPTIONS, type BuildsConfig, getBuildsConfig, type RepositoryConfig } from "../config";
import { readCommitInfo } from "../git/commits";
import { listModules } from "../git/mirrors";
import type { Actor } from "../permissions";
import { enqueueBuild } from "../queue/executor";
import {
  type BuildRecord,
  findAutomaticBuildOfCommit,
  findBuild,
  insertQueuedBuild,
  listAutomaticBuildsOfBranch,
  moveBuild,
} from "../repository";
import { configuredDriver } from "../runtime/drivers";
import { AUTOMATIC_TRIGGERS } from "../schemas";
import { type BuildStatus, IN_PROGRESS_STATUSES } from "../status";
import { type BundleRef, bundleOf, resolveBundleRefs } from "./bundles";
import {
  type AutoTrigger,
  deleteHead,
  findHead,
  type HeadRecord,
  listPendingHeads,
  markHeadBuilt,
  saveHead,
} from "./heads";
import { pullNumberOf } from "./pull-refs";

/**
 * Automatic builds: a webhook or a poll notices the head of a followed branch; one build is made
 * per (repository, commit), or for a repository of a bundle per (bundle, branch, commit), holding every repository
 * of the bundle (lib/builds/auto/bundles.ts); notices that find the queue full are remembered (the newest per
 * branch) and built when there is room; once a newer automatic build of a branch runs, the older ones of that
 * branch go, but the newest keep_per_branch. Automatic builds have no creating user: they belong to the service.
 */
export const SERVICE_CREATOR = "build service";

/** The service acting on its own builds (superseding, branch deletion): they are the admins' and its own. */
const SERVICE_ACTOR: Actor = { id: 0, role: "admin" };

/** Builds that are alive or on their way: what superseding and branch deletion act on. */
const LIVE_STATUSES: readonly BuildStatus[] = ["queued", ...IN_PROGRESS_STATUSES, "running", "sleeping"];

export type NoticeOutcome =
  | { result: "started"; build: BuildRecord; detail: string }
  | { result: "pending"; detail: string }
  | { result: "nothing_to_do"; detail: string; buildIds: string[] };

/** Whether the repository's auto_build follows the branch. */
export function followsBranch(repository: RepositoryConfig, branch: string): boolean {
  const globs = repository.auto_build?.branches;
  return !!globs && picomatch.isMatch(branch, globs, BRANCH_GLOB_OPTIONS);
}

/** Whether auto_build follows the ref: a branch by its globs, a pull request's head by `pull_requests`. */
export function followsRef(repository: RepositoryConfig, ref: string): boolean {
  if (pullNumberOf(ref) !== null) return repository.auto_build?.pull_requests === true;
  return followsBranch(repository, ref);
}

// Notices, drains and branch deletions run one at a time in this process, and across the instances of a cluster
// (a webhook on one, a poll or a drain on another): "is there a build of this commit?" and "make one" must not
// interleave between two notices of the same push.
const globalForAuto = processWide<{ autoBuildsTail?: Promise<unknown> }>("autoBuildsTail", () => ({}));

function serialized<T>(work: () => Promise<T>): Promise<T> {
  const locked = () => getTopology().withLock("automatic builds", work);
  const run = (globalForAuto.autoBuildsTail ?? Promise.resolve()).then(locked, locked);
  globalForAuto.autoBuildsTail = run.catch(() => undefined);
  return run;
}

/**
 * A branch's head was noticed (the mirror is already fetched): builds it unless that commit was already
 * noticed or built, or remembers it while the queue is full.
 */
export function noticeBranchHead(
  repository: RepositoryConfig,
  branch: string,
  commitSha: string,
  trigger: AutoTrigger,
  triggeredBy: string | null,
  /** For a pull request: the branch it comes from, which the other repositories of a bundle follow. */
  sourceBranch: string | null = null,
): Promise<NoticeOutcome> {
  return serialized(async () => {
    if (!followsRef(repository, branch)) {
      return { result: "nothing_to_do", detail: `The branch "${branch}" is not followed by auto_build.`, buildIds: [] };
    }
    const head = await findHead(repository.alias, branch);
    const bundle = bundleKey(repository.alias, branch);
    if (head?.commitSha === commitSha) {
      if (head.pending)
        return {
          result: "pending",
          detail: `${short(commitSha)} of ${branch} is already waiting for room in the queue.`,
        };
      const built = await findAutomaticBuildOfCommit(repository.alias, commitSha, AUTOMATIC_TRIGGERS, bundle);
      return {
        result: "nothing_to_do",
        detail: `${short(commitSha)} of ${branch} was already noticed.`,
        buildIds: built ? [built.id] : [],
      };
    }
    const existing = await findAutomaticBuildOfCommit(repository.alias, commitSha, AUTOMATIC_TRIGGERS, bundle);
    // A branch forgotten (deleted, its pull request closed) and noticed again (re-created, reopened, maybe while
    // its preview is being destroyed) gets a preview again: only a live build of the commit stands for it then.
    const standsFor = existing && (head !== null || LIVE_STATUSES.includes(existing.status as BuildStatus));
    if (existing && standsFor) {
      await saveHead(repository.alias, branch, { commitSha, pending: false, trigger, triggeredBy, sourceBranch });
      return {
        result: "nothing_to_do",
        detail: `${short(commitSha)} already has an automatic build.`,
        buildIds: [existing.id],
      };
    }
    const saved = await saveHead(repository.alias, branch, {
      commitSha,
      pending: true,
      trigger,
      triggeredBy,
      sourceBranch,
    });
    const started = await startHead(getBuildsConfig(), saved);
    if (started.kind === "started")
      return { result: "started", build: started.build, detail: `Building ${short(commitSha)} of ${branch}.` };
    if (started.kind === "queue_full") {
      return {
        result: "pending",
        detail: `The build queue is full: ${short(commitSha)} of ${branch} is remembered and built when there is room.`,
      };
    }
    return { result: "nothing_to_do", detail: started.detail, buildIds: [] };
  });
}

type StartResult =
  | { kind: "started"; build: BuildRecord }
  | { kind: "queue_full" }
  | { kind: "skipped"; detail: string };

/** Makes the build of a pending head, unless the queue is full. */
async function startHead(config: BuildsConfig, head: HeadRecord): Promise<StartResult> {
  const repository = config.repositories.find((candidate) => candidate.alias === head.alias);
  if (!repository?.auto_build || !followsRef(repository, head.branch)) {
    await markHeadBuilt(head.id, head.commitSha);
    return { kind: "skipped", detail: `The branch "${head.branch}" is no longer followed.` };
  }
  // A crash between making the build and clearing `pending` must not build the commit twice. A build of the
  // commit that ended before is no reason: the head was noticed again after its branch was forgotten.
  const bundle = bundleKey(head.alias, head.branch);
  const prior = await findAutomaticBuildOfCommit(head.alias, head.commitSha, AUTOMATIC_TRIGGERS, bundle);
  if (prior && LIVE_STATUSES.includes(prior.status as BuildStatus)) {
    await markHeadBuilt(head.id, head.commitSha);
    return { kind: "skipped", detail: `${short(head.commitSha)} already has an automatic build.` };
  }
  let modules: string[];
  try {
    const available = await listModules(config, repository, head.commitSha);
    const wanted = repository.auto_build.modules;
    modules = wanted === "all" ? available : wanted.filter((name) => available.includes(name));
  } catch (error) {
    await markHeadBuilt(head.id, head.commitSha);
    return {
      kind: "skipped",
      detail: `The commit ${short(head.commitSha)} cannot be read: ${(error as Error).message.split("\n")[0]}`,
    };
  }
  if (modules.length === 0) {
    await markHeadBuilt(head.id, head.commitSha);
    return {
      kind: "skipped",
      detail: `No module of auto_build.modules exists at ${short(head.commitSha)} of ${head.branch}.`,
    };
  }
  const holds = bundle
    ? await bundleRepositories(config, bundle, head, modules)
    : {
        repositories: [
          { alias: head.alias, ref: head.branch, commitSha: head.commitSha, reason: "branch" } as BundleRef,
        ],
        modules,
      };
  if ("skipped" in holds) {
    await markHeadBuilt(head.id, head.commitSha);
    return { kind: "skipped", detail: holds.skipped };
  }
  const build = await insertQueuedBuild(
    {
      id: crypto.randomBytes(8).toString("hex"),
      ttlSeconds: repository.auto_build.ttl_seconds ?? config.ttl.default_seconds,
      createdAt: new Date(),
      createdById: null,
      createdBy: SERVICE_CREATOR,
      trigger: head.trigger as AutoTrigger,
      triggeredBy: head.triggeredBy,
      repositories: await Promise.all(
        holds.repositories.map(async (repository) => {
          const commit = await readCommitInfo(config, repository.alias, repository.commitSha);
          return {
            alias: repository.alias,
            ref: repository.ref,
            commitSha: repository.commitSha,
            commitSubject: commit.subject,
            commitAuthor: commit.author,
            refReason: repository.reason,
          };
        }),
      ),
      modules: holds.modules,
      bundle: bundle ?? undefined,
      driver: configuredDriver(config).name,
      stages: configuredDriver(config).stages.map((stage) => stage.name),
    },
    config.max_queued_builds,
  );
  if (!build) return { kind: "queue_full" };
  await markHeadBuilt(head.id, head.commitSha);
  enqueueBuild(build.id);
  return { kind: "started", build };
}

/** The bundle a branch of a repository is built in, keyed by the branch, or null for a repository of its own. */
function bundleKey(alias: string, branch: string): { name: string; branch: string } | null {
  const bundle = bundleOf(getBuildsConfig(), alias);
  return bundle ? { name: bundle.name, branch } : null;
}

/**
 * What a bundle's build of a pushed branch holds: every repository of the bundle (in ADDONS_PATH order) at its
 * ref for that branch, and the modules of auto_build of each (the pushed repository's already listed). The
 * repositories without auto_build are there for the others to depend on: none of their modules is installed.
 */
async function bundleRepositories(
  config: BuildsConfig,
  bundle: { name: string; branch: string },
  head: HeadRecord,
  pushedModules: string[],
): Promise<{ repositories: BundleRef[]; modules: string[] } | { skipped: string }> {
  const members = config.bundles.find((candidate) => candidate.name === bundle.name)?.repositories ?? [];
  const repositories = config.repositories.filter((repository) => members.includes(repository.alias));
  // A pull request's head is no branch of the others: they follow the branch it comes from (its base, else their
  // default_ref, where they lack it), as runbot puts a pull request in the bundle of its branch.
  const branch = pullNumberOf(head.branch) === null ? head.branch : (head.sourceBranch ?? "");
  const { refs, missing } = await resolveBundleRefs(config, repositories, branch, {
    alias: head.alias,
    ref: head.branch,
    commitSha: head.commitSha,
  });
  if (missing !== null)
    return { skipped: `The bundle "${bundle.name}" cannot be built: "${missing}" has no default_ref to fall back on.` };
  const modules = new Set(pushedModules);
  for (const ref of refs) {
    const repository = repositories.find((candidate) => candidate.alias === ref.alias);
    if (!repository?.auto_build || ref.alias === head.alias) continue;
    try {
      const available = await listModules(config, repository, ref.commitSha);
      const wanted = repository.auto_build.modules;
      for (const name of wanted === "all" ? available : wanted.filter((module) => available.includes(module)))
        modules.add(name);
    } catch (error) {
      return { skipped: `${ref.alias}@${ref.ref} cannot be read: ${(error as Error).message.split("\n")[0]}` };
    }
  }
  return { repositories: refs, modules: [...modules] };
}

/** Builds remembered notices, oldest first, while the queue has room. */
export function drainPendingNotices(): Promise<void> {
  return serialized(async () => {
    const config = getBuildsConfig();
    for (const head of await listPendingHeads()) {
      if ((await startHead(config, head)).kind === "queue_full") return;
    }
  });
}

/**
 * A followed branch was deleted: forgets its head, and returns its live automatic builds with a promise that
 * settles once they are destroyed (queued and in-progress ones are canceled first).
 */
export async function forgetBranch(
  repository: RepositoryConfig,
  branch: string,
): Promise<{ buildIds: string[]; done: Promise<void> }> {
  const builds = await serialized(async () => {
    await deleteHead(repository.alias, branch);
    const bundle = bundleKey(repository.alias, branch);
    // A bundle's builds of the branch that held this repository at it go; those that took it at its base stay.
    const live = bundle
      ? (await listAutomaticBuildsOfBranch("", branch, AUTOMATIC_TRIGGERS, LIVE_STATUSES, bundle.name)).filter(
          (build) => build.repositories.some((r) => r.alias === repository.alias && r.ref === branch),
        )
      : await listAutomaticBuildsOfBranch(repository.alias, branch, AUTOMATIC_TRIGGERS, LIVE_STATUSES);
    // Previews leave the live ones before the lock is let go: a notice of the branch right after (a pull request
    // reopened during the destroy) must not take a preview on its way out for its own.
    for (const build of live) {
      if (build.status === "running" || build.status === "sleeping")
        await moveBuild(build.id, build.status as BuildStatus, "destroying");
    }
    return live;
  });
  const done = Promise.all(builds.map((build) => retire(build.id))).then(() => undefined);
  return { buildIds: builds.map((build) => build.id), done };
}

/**
 * A build reached running: when it is automatic, the live automatic builds of its branch (a repository's branch or
 * pull request, or a bundle's branch) older than the newest running one go, but the newest keep_per_branch
 * previews (running or asleep) among them; so if newer ones of that branch already run, this one may go instead.
 * A build that failed never reaches here: it replaces nothing.
 */
export async function retireSupersededBuilds(buildId: string): Promise<void> {
  const build = await findBuild(buildId);
  if (!build || !AUTOMATIC_TRIGGERS.includes(build.trigger as AutoTrigger)) return;
  const [first] = build.repositories;
  if (!first || (build.bundle === null && build.repositories.length !== 1)) return;
  const live =
    build.bundle === null
      ? await listAutomaticBuildsOfBranch(first.alias, first.ref, AUTOMATIC_TRIGGERS, LIVE_STATUSES)
      : await listAutomaticBuildsOfBranch("", build.branch ?? "", AUTOMATIC_TRIGGERS, LIVE_STATUSES, build.bundle);
  const newestRunning = live.filter((candidate) => candidate.status === "running").at(-1);
  if (!newestRunning) return;
  const older = live.filter((candidate) => candidate.seq <= newestRunning.seq);
  const kept = new Set(
    older
      .filter((candidate) => candidate.status === "running" || candidate.status === "sleeping")
      .slice(-getBuildsConfig().keep_per_branch)
      .map((candidate) => candidate.id),
  );
  await Promise.all(older.filter((candidate) => !kept.has(candidate.id)).map((candidate) => retire(candidate.id)));
}

/** Cancels (if still on its way) and destroys a build; one that moved meanwhile is left as it is. */
async function retire(buildId: string): Promise<void> {
  try {
    const build = await findBuild(buildId);
    if (!build) return;
    if (build.status !== "running") await cancelBuild(buildId, SERVICE_ACTOR).catch(() => undefined);
    await destroyBuild(buildId, SERVICE_ACTOR);
  } catch (error) {
    console.error(`builds: the automatic build ${buildId} could not be destroyed:`, error);
  }
}

function short(sha: string): string {
  return sha.slice(0, 12);
}
