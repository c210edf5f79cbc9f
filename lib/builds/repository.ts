import type { Prisma } from "@prisma/client";
import { getDb } from "../db";
import { notifyBuildChanged } from "./build-events";
import type { BuildTrigger } from "./schemas";
import { canMove, type BuildStatus, type StageName, type StageStatus, STAGE_NAMES } from "./status";

/** Data access for builds. Status changes go through `moveBuild`, which enforces the table of moves. */
const withDetails = {
  repositories: { orderBy: { position: "asc" } },
  stages: { orderBy: { position: "asc" } },
} as const satisfies Prisma.BuildInclude;

export type BuildRecord = Prisma.BuildGetPayload<{ include: typeof withDetails }>;

export interface NewBuild {
  id: string;
  modules: string[];
  ttlSeconds: number;
  createdAt: Date;
  /** Null for automatic builds: they belong to the service. */
  createdById: number | null;
  createdBy: string;
  trigger: BuildTrigger;
  triggeredBy: string | null;
  repositories: { alias: string; ref: string; commitSha: string; commitSubject: string | null; commitAuthor: string | null }[];
}

/**
 * Inserts a queued build unless `maxQueued` builds are already waiting (null then). Count and insert share one
 * transaction, which the SQLite adapter runs one at a time, so simultaneous requests cannot all take the
 * last place in the queue.
 */
export function insertQueuedBuild(build: NewBuild, maxQueued: number): Promise<BuildRecord | null> {
  return getDb().$transaction(async (tx) => {
    if ((await tx.build.count({ where: { status: "queued" } })) >= maxQueued) return null;
    return tx.build.create({
      data: {
        id: build.id,
        status: "queued",
        modules: build.modules.join(","),
        ttlSeconds: build.ttlSeconds,
        createdAt: build.createdAt,
        // The time to live starts at running (the executor sets expiresAt then).
        expiresAt: null,
        createdById: build.createdById,
        createdBy: build.createdBy,
        trigger: build.trigger,
        triggeredBy: build.triggeredBy,
        repositories: { create: build.repositories.map((repository, position) => ({ ...repository, position })) },
        stages: { create: STAGE_NAMES.map((name, position) => ({ name, position, status: "pending" })) },
      },
      include: withDetails,
    });
  });
}

export function findBuild(id: string): Promise<BuildRecord | null> {
  return getDb().build.findUnique({ where: { id }, include: withDetails });
}

export async function listBuildRecords(options: { status?: BuildStatus; limit: number; beforeSeq?: number }) {
  return getDb().build.findMany({
    where: { status: options.status, seq: options.beforeSeq === undefined ? undefined : { lt: options.beforeSeq } },
    orderBy: { seq: "desc" },
    take: options.limit,
    include: { repositories: { orderBy: { position: "asc" } } },
  });
}

export async function findBuildSeq(id: string): Promise<number | null> {
  const row = await getDb().build.findUnique({ where: { id }, select: { seq: true } });
  return row?.seq ?? null;
}

export function listBuildsWithStatus(statuses: readonly BuildStatus[]): Promise<BuildRecord[]> {
  return getDb().build.findMany({
    where: { status: { in: [...statuses] } },
    orderBy: { seq: "asc" },
    include: withDetails,
  });
}

export function listExpiredRunningBuilds(now: Date): Promise<BuildRecord[]> {
  return getDb().build.findMany({ where: { status: "running", expiresAt: { lte: now } }, include: withDetails });
}

/** The seq of every queued build, oldest first: a queued build's position is its index here plus one. */
export async function listQueuedSeqs(): Promise<number[]> {
  const rows = await getDb().build.findMany({ where: { status: "queued" }, orderBy: { seq: "asc" }, select: { seq: true } });
  return rows.map((row) => row.seq);
}

export function countQueuedBuilds(): Promise<number> {
  return getDb().build.count({ where: { status: "queued" } });
}

/** Statuses of builds that are over: their rows and logs are kept for retention_days, then purged. */
export const ENDED_STATUSES: readonly BuildStatus[] = ["failed", "canceled", "expired", "destroyed"];

/**
 * Moves a build from `from` to `to` if the table allows it and nobody moved it meanwhile (the update only
 * matches the status that was read). Returns whether it moved.
 */
export async function moveBuild(
  id: string,
  from: BuildStatus,
  to: BuildStatus,
  data: Omit<Prisma.BuildUpdateManyMutationInput, "status"> = {},
): Promise<boolean> {
  if (!canMove(from, to)) throw new Error(`A build cannot move from ${from} to ${to}.`);
  // Retention (lib/builds/retention.ts) counts from the last time a build reached an end.
  const ended = ENDED_STATUSES.includes(to) ? { endedAt: new Date() } : {};
  const { count } = await getDb().build.updateMany({ where: { id, status: from }, data: { ...ended, ...data, status: to } });
  if (count === 1) notifyBuildChanged(id);
  return count === 1;
}

export function updateBuildRuntime(id: string, data: { port?: number | null; runtimePgid?: number | null }) {
  return getDb().build.update({ where: { id }, data });
}

export async function updateStage(
  buildId: string,
  name: StageName,
  data: { status?: StageStatus; startedAt?: Date; finishedAt?: Date; exitCode?: number | null; pgid?: number | null; logFile?: string },
) {
  const stage = await getDb().buildStage.update({ where: { buildId_name: { buildId, name } }, data });
  notifyBuildChanged(buildId);
  return stage;
}

/** Closes the stages that never finished: running ones get `runningTo`, pending ones `pendingTo`. */
export async function closeOpenStages(buildId: string, runningTo: StageStatus, pendingTo: StageStatus, at: Date) {
  const db = getDb();
  await db.buildStage.updateMany({ where: { buildId, status: "running" }, data: { status: runningTo, finishedAt: at, pgid: null } });
  await db.buildStage.updateMany({ where: { buildId, status: "pending" }, data: { status: pendingTo } });
  notifyBuildChanged(buildId);
}

/** Sets a running build's expiry and the time to live it was given; false when it is no longer running. */
export async function setRunningBuildExpiry(id: string, expiresAt: Date, ttlSeconds: number): Promise<boolean> {
  const { count } = await getDb().build.updateMany({ where: { id, status: "running" }, data: { expiresAt, ttlSeconds } });
  return count === 1;
}

/** Whether an automatic build (any status) was ever made of this repository's commit. */
export async function findAutomaticBuildOfCommit(alias: string, commitSha: string, triggers: readonly string[]) {
  return getDb().build.findFirst({
    where: { trigger: { in: [...triggers] }, repositories: { some: { alias, commitSha } } },
    select: { id: true },
    orderBy: { seq: "desc" },
  });
}

/** The automatic builds following a branch (their one repository at that ref), oldest first. */
export function listAutomaticBuildsOfBranch(alias: string, branch: string, triggers: readonly string[], statuses: readonly BuildStatus[]) {
  return getDb().build.findMany({
    where: { trigger: { in: [...triggers] }, status: { in: [...statuses] }, repositories: { some: { alias, ref: branch } } },
    orderBy: { seq: "asc" },
    include: withDetails,
  });
}

/**
 * Builds that are over and ended before `cutoff`. Rows made before endedAt existed fall back to when the
 * build stopped working, then to when it was created.
 */
export function listBuildsEndedBefore(cutoff: Date, limit: number) {
  return getDb().build.findMany({
    where: {
      status: { in: [...ENDED_STATUSES] },
      OR: [
        { endedAt: { lt: cutoff } },
        { endedAt: null, finishedAt: { lt: cutoff } },
        { endedAt: null, finishedAt: null, createdAt: { lt: cutoff } },
      ],
    },
    orderBy: { seq: "asc" },
    take: limit,
    select: { id: true, status: true, port: true, runtimePgid: true },
  });
}

/** Deletes a build's row (its repositories and stages go with it) if it is still in `status`. */
export async function deleteBuildRow(id: string, status: string): Promise<boolean> {
  const { count } = await getDb().build.deleteMany({ where: { id, status } });
  return count === 1;
}
