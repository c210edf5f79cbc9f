import type { Prisma } from "@prisma/client";
import { getDb } from "../db";
import { canMove, type BuildStatus, type StageName, type StageStatus } from "./status";

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
  createdById: number;
  createdBy: string;
  repositories: { alias: string; ref: string; commitSha: string }[];
  /** The runtime driver and its stage names, in order. */
  driver: string;
  stages: readonly StageName[];
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
        expiresAt: new Date(build.createdAt.getTime() + build.ttlSeconds * 1000),
        createdById: build.createdById,
        createdBy: build.createdBy,
        driver: build.driver,
        repositories: { create: build.repositories.map((repository, position) => ({ ...repository, position })) },
        stages: { create: build.stages.map((name, position) => ({ name, position, status: "pending" })) },
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

/** Builds that are over but still hold a port or a runtime handle (a destroy that could not finish), and DELETEs left halfway. */
export function listBuildsAwaitingDestroy(): Promise<BuildRecord[]> {
  return getDb().build.findMany({
    where: {
      OR: [
        { status: { in: ["failed", "canceled", "expired"] }, OR: [{ port: { not: null } }, { runtimeHandle: { not: null } }] },
        { status: "destroying" },
      ],
    },
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
  const { count } = await getDb().build.updateMany({ where: { id, status: from }, data: { ...data, status: to } });
  return count === 1;
}

export function updateBuildRuntime(id: string, data: { port?: number | null; runtimeHandle?: string | null }) {
  return getDb().build.update({ where: { id }, data });
}

export function updateStage(
  buildId: string,
  name: StageName,
  data: { status?: StageStatus; startedAt?: Date; finishedAt?: Date; exitCode?: number | null; handle?: string | null; logFile?: string },
) {
  return getDb().buildStage.update({ where: { buildId_name: { buildId, name } }, data });
}

/** Closes the stages that never finished: running ones get `runningTo`, pending ones `pendingTo`. */
export async function closeOpenStages(buildId: string, runningTo: StageStatus, pendingTo: StageStatus, at: Date) {
  const db = getDb();
  await db.buildStage.updateMany({ where: { buildId, status: "running" }, data: { status: runningTo, finishedAt: at, handle: null } });
  await db.buildStage.updateMany({ where: { buildId, status: "pending" }, data: { status: pendingTo } });
}
