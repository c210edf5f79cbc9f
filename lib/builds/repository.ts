import { Prisma } from "@prisma/client";
import { getDb } from "../db";
import { notifyBuildChanged } from "./build-events";
import type { BuildTrigger } from "./schemas";
import { canMove, type BuildStatus, type StageName, type StageStatus } from "./status";

/**
 * Data access for builds. Status changes go through `moveBuild`, which enforces the table of moves.
 * The queries that run for every request or every stage are raw SQL through Prisma: a query Prisma builds
 * costs it about a millisecond of CPU to compile, several times what SQLite spends (README, Performance).
 */
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
  /** The runtime driver and its stage names, in order. */
  driver: string;
  stages: readonly StageName[];
}

/**
 * Inserts a queued build unless `maxQueued` builds are already waiting (null then). The build's row is inserted
 * by one statement that counts the queue in its WHERE, so simultaneous requests cannot all take the last place;
 * its repositories and stages follow in the same transaction, only if that row went in.
 */
export async function insertQueuedBuild(build: NewBuild, maxQueued: number): Promise<BuildRecord | null> {
  const db = getDb();
  const inserted = Prisma.sql`EXISTS (SELECT 1 FROM "Build" WHERE "id" = ${build.id})`;
  const repositories = build.repositories.map(
    (r, position) => Prisma.sql`(${position}, ${r.alias}, ${r.ref}, ${r.commitSha}, ${r.commitSubject}, ${r.commitAuthor})`,
  );
  const stages = build.stages.map((name, position) => Prisma.sql`(${position}, ${name}, 'pending')`);
  const [builds] = await db.$transaction([
    // The time to live starts at running (the executor sets expiresAt then).
    db.$executeRaw`
      INSERT INTO "Build" ("id", "status", "modules", "ttlSeconds", "createdAt", "expiresAt", "createdById", "createdBy", "trigger", "triggeredBy", "driver")
      SELECT ${build.id}, 'queued', ${build.modules.join(",")}, ${build.ttlSeconds}, ${build.createdAt}, NULL, ${build.createdById},
             ${build.createdBy}, ${build.trigger}, ${build.triggeredBy}, ${build.driver}
      WHERE (SELECT COUNT(*) FROM "Build" WHERE "status" = 'queued') < ${maxQueued}`,
    db.$executeRaw`
      INSERT INTO "BuildRepository" ("buildId", "position", "alias", "ref", "commitSha", "commitSubject", "commitAuthor")
      SELECT ${build.id}, * FROM (VALUES ${Prisma.join(repositories)}) WHERE ${inserted}`,
    db.$executeRaw`
      INSERT INTO "BuildStage" ("buildId", "position", "name", "status")
      SELECT ${build.id}, * FROM (VALUES ${Prisma.join(stages)}) WHERE ${inserted}`,
  ]);
  return builds === 1 ? findBuild(build.id) : null;
}

/** A build with its repositories and stages (in order), as `include: withDetails` gives it; read on every request about it. */
export async function findBuild(id: string): Promise<BuildRecord | null> {
  const db = getDb();
  const [builds, repositories, stages] = await Promise.all([
    db.$queryRaw<Omit<BuildRecord, "repositories" | "stages">[]>`SELECT * FROM "Build" WHERE "id" = ${id}`,
    db.$queryRaw<BuildRecord["repositories"]>`SELECT * FROM "BuildRepository" WHERE "buildId" = ${id} ORDER BY "position"`,
    db.$queryRaw<BuildRecord["stages"]>`SELECT * FROM "BuildStage" WHERE "buildId" = ${id} ORDER BY "position"`,
  ]);
  return builds.length === 0 ? null : { ...builds[0], repositories, stages };
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

export async function countQueuedBuilds(): Promise<number> {
  const [{ queued }] = await getDb().$queryRaw<{ queued: bigint }[]>`SELECT COUNT(*) AS "queued" FROM "Build" WHERE "status" = 'queued'`;
  return Number(queued);
}

/** A queued build's place in the queue, from 1. */
export async function queuePosition(seq: number): Promise<number> {
  const [{ ahead }] = await getDb().$queryRaw<{ ahead: bigint }[]>`
    SELECT COUNT(*) AS "ahead" FROM "Build" WHERE "status" = 'queued' AND "seq" < ${seq}`;
  return Number(ahead) + 1;
}

/** Statuses of builds that are over: their rows and logs are kept for retention_days, then purged. */
export const ENDED_STATUSES: readonly BuildStatus[] = ["failed", "canceled", "expired", "destroyed"];

/** What moveBuild may set along with the status: the SQL names come from here, never from a caller. */
const MOVE_COLUMNS = ["startedAt", "finishedAt", "expiresAt", "failureStage", "failureMessage"] as const;
type MoveData = Partial<{ startedAt: Date; finishedAt: Date; expiresAt: Date; failureStage: string; failureMessage: string }>;

/** `column = value` for each column of `columns` that `data` has a value for (null included). */
function assignments<T extends string>(columns: readonly T[], data: Partial<Record<T, unknown>>): Prisma.Sql[] {
  return columns.filter((column) => data[column] !== undefined).map((column) => Prisma.sql`${Prisma.raw(`"${column}"`)} = ${data[column]}`);
}

/**
 * Moves a build from `from` to `to` if the table allows it and nobody moved it meanwhile (the update only
 * matches the status that was read). Returns whether it moved.
 */
export async function moveBuild(id: string, from: BuildStatus, to: BuildStatus, data: MoveData = {}): Promise<boolean> {
  if (!canMove(from, to)) throw new Error(`A build cannot move from ${from} to ${to}.`);
  const set = [Prisma.sql`"status" = ${to}`, ...assignments(MOVE_COLUMNS, data)];
  // Retention (lib/builds/retention.ts) counts from the last time a build reached an end.
  if (ENDED_STATUSES.includes(to)) set.push(Prisma.sql`"endedAt" = ${new Date()}`);
  const count = await getDb().$executeRaw`UPDATE "Build" SET ${Prisma.join(set)} WHERE "id" = ${id} AND "status" = ${from}`;
  if (count === 1) notifyBuildChanged(id);
  return count === 1;
}

const RUNTIME_COLUMNS = ["port", "runtimeHandle"] as const;

export async function updateBuildRuntime(id: string, data: { port?: number | null; runtimeHandle?: string | null }): Promise<void> {
  const set = assignments(RUNTIME_COLUMNS, data);
  if (set.length > 0) await getDb().$executeRaw`UPDATE "Build" SET ${Prisma.join(set)} WHERE "id" = ${id}`;
}

/** The columns updateStage may set: the SQL names come from here, never from a caller. */
const STAGE_COLUMNS = ["status", "startedAt", "finishedAt", "exitCode", "handle", "logFile"] as const;

export async function updateStage(
  buildId: string,
  name: StageName,
  data: { status?: StageStatus; startedAt?: Date; finishedAt?: Date; exitCode?: number | null; handle?: string | null; logFile?: string },
): Promise<void> {
  const set = assignments(STAGE_COLUMNS, data);
  if (set.length === 0) return;
  await getDb().$executeRaw`UPDATE "BuildStage" SET ${Prisma.join(set)} WHERE "buildId" = ${buildId} AND "name" = ${name}`;
  notifyBuildChanged(buildId);
}

/** Closes the stages that never finished: running ones get `runningTo`, pending ones `pendingTo`. */
export async function closeOpenStages(buildId: string, runningTo: StageStatus, pendingTo: StageStatus, at: Date) {
  const db = getDb();
  await db.buildStage.updateMany({ where: { buildId, status: "running" }, data: { status: runningTo, finishedAt: at, handle: null } });
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
    select: { id: true, status: true, port: true, runtimeHandle: true },
  });
}

/** Deletes a build's row (its repositories and stages go with it) if it is still in `status`. */
export async function deleteBuildRow(id: string, status: string): Promise<boolean> {
  const { count } = await getDb().build.deleteMany({ where: { id, status } });
  return count === 1;
}
