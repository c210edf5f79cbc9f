import type { Prisma } from "@prisma/client";
import { getDb } from "../db";
import { all, execute, executeReturningOne, queryAll, queryOne, run, transaction } from "../db/hot-sql";
import { enqueueBuildRow } from "../db/statements/enqueue-build";
import { readBuildWithDetails } from "../db/statements/read-build";
import { buildEvents } from "./events";
import { inheritBranchPreviewAccess } from "./preview-access";
import type { BuildTrigger } from "./schemas";
import { type BuildStatus, canMove, IN_PROGRESS_STATUSES, type StageName, type StageStatus } from "./status";

/**
 * Data access for builds. Status changes go through `moveBuild`, which enforces the table of moves.
 * The queries that run for every request or every stage are prepared statements (lib/db/hot-sql.ts), on SQLite
 * and PostgreSQL alike: a query through Prisma costs 0.2–1.5 ms of CPU, a hundred times what SQLite spends
 * (docs/performance.md). The rest go through Prisma.
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
  repositories: {
    alias: string;
    ref: string;
    commitSha: string;
    commitSubject: string | null;
    commitAuthor: string | null;
    /** Why the build took this ref (lib/builds/auto/bundles.ts). */
    refReason?: "requested" | "branch" | "base" | "default";
  }[];
  /** For an automatic build of a bundle: its name, and the branch pushed. */
  bundle?: { name: string; branch: string };
  /** The runtime driver and its stage names, in order. */
  driver: string;
  stages: readonly StageName[];
}

/**
 * Inserts a queued build unless `maxQueued` builds are already waiting or its creator's bounds are reached (null
 * then), in one statement that counts in its WHERE, so simultaneous requests cannot all take the last place
 * (lib/db/statements/enqueue-build.ts). The time to live starts at running (the executor sets expiresAt then). The
 * build takes its branch's last preview access (lib/builds/preview-access.ts) while queued, before any preview of
 * it can be reached, and is read back after the insert, outside any lock.
 */
export async function insertQueuedBuild(
  build: NewBuild,
  maxQueued: number,
  perUser: UserBuildLimits = NO_USER_LIMITS,
): Promise<BuildRecord | null> {
  const inserted = await enqueueBuildRow(
    {
      ...build,
      repositories: build.repositories.map(({ refReason: _reason, ...r }, position) => ({ position, ...r })),
    },
    { maxQueued, liveStatuses: LIVE_BUILD_STATUSES, ...perUser },
  );
  if (!inserted) return null;
  // The queue's statement stays as it is on both databases: what only some builds have is written after it, before
  // anyone is told of the build (a claim that came first would not read these anyway).
  await describeBuildRefs(build);
  const [first] = build.repositories;
  if (first) await inheritBranchPreviewAccess(build.id, first);
  return findBuild(build.id);
}

async function describeBuildRefs(build: NewBuild): Promise<void> {
  const db = getDb();
  if (build.bundle)
    await db.build.update({
      where: { id: build.id },
      data: { bundle: build.bundle.name, branch: build.bundle.branch },
    });
  for (const repository of build.repositories) {
    if (!repository.refReason) continue;
    await db.buildRepository.updateMany({
      where: { buildId: build.id, alias: repository.alias },
      data: { refReason: repository.refReason },
    });
  }
}

/** A user's bounds (lib/builds/limits.ts); null: none. */
export interface UserBuildLimits {
  live: number | null;
  queued: number | null;
}

const NO_USER_LIMITS: UserBuildLimits = { live: null, queued: null };

/** What the per-user limits count as live: queued, in progress, running or sleeping (every status that may hold a port). */
export const LIVE_BUILD_STATUSES: readonly BuildStatus[] = [
  "queued",
  "checking_out",
  "installing",
  "testing",
  "starting",
  "running",
  "sleeping",
];
const LIVE_SQL = LIVE_BUILD_STATUSES.map((status) => `'${status}'`).join(", ");

export interface LiveFirstRepository {
  alias: string;
  ref: string;
  /** Its build's own choice of preview access; null: the repository's. */
  previewAccess: string | null;
}

/**
 * The first repository of every live build, newest build first: what the names of the previews are made of
 * (lib/builds/preview-names.ts branchLabel). Read from the live builds (the status index), never from a
 * repository's every build: a repository keeps thousands within retention_days, of which a few dozen live.
 */
export async function listLiveFirstRepositories(): Promise<LiveFirstRepository[]> {
  return queryAll<LiveFirstRepository>(
    `SELECT r."alias", r."ref", b."previewAccess" FROM "Build" b
     JOIN "BuildRepository" r ON r."buildId" = b."id" AND r."position" = 0
     WHERE b."status" IN (${LIVE_SQL}) ORDER BY b."seq" DESC`,
  );
}

/**
 * The refs a branch's readable name may clash with, by what its names end in: the live builds' first repositories'
 * refs by alias, and the live bundle builds' branches by the bundle's name (no bundle is named as a repository).
 */
export async function listLiveFirstRefs(): Promise<Map<string, string[]>> {
  const refs = new Map<string, string[]>();
  const add = (owner: string, ref: string) => {
    const known = refs.get(owner) ?? [];
    if (!known.includes(ref)) refs.set(owner, [...known, ref]);
  };
  const [repositories, bundles] = await Promise.all([
    listLiveFirstRepositories(),
    queryAll<{ bundle: string; branch: string }>(
      `SELECT "bundle", "branch" FROM "Build"
       WHERE "status" IN (${LIVE_SQL}) AND "bundle" IS NOT NULL AND "branch" IS NOT NULL ORDER BY "seq" DESC`,
    ),
  ]);
  for (const { alias, ref } of repositories) add(alias, ref);
  for (const { bundle, branch } of bundles) add(bundle, branch);
  return refs;
}

/** How many builds of a user are live, and how many of those are queued. */
export async function countBuildsOfUser(userId: number): Promise<{ live: number; queued: number }> {
  const row = await queryOne<{ live: number; queued: number }>(
    `SELECT CAST(COUNT(*) AS INTEGER) AS "live", CAST(COALESCE(SUM(CASE WHEN "status" = 'queued' THEN 1 ELSE 0 END), 0) AS INTEGER) AS "queued"
     FROM "Build" WHERE "status" IN (${LIVE_SQL}) AND "createdById" = ?`,
    [userId],
  );
  return row!;
}

/** A build with its repositories and stages (in order), as `include: withDetails` gives it; read on every request about it. */
export async function findBuild(id: string): Promise<BuildRecord | null> {
  return readBuildWithDetails<BuildRecord>(id);
}

/**
 * Newest first. `firstRepositoryIn`, when given (for a viewer who may see public builds only), keeps the builds
 * whose own preview access is public, and those without a choice whose first repository is one of those.
 */
export async function listBuildRecords(options: {
  status?: BuildStatus;
  limit: number;
  beforeSeq?: number;
  firstRepositoryIn?: string[];
}) {
  return getDb().build.findMany({
    where: {
      status: options.status,
      seq: options.beforeSeq === undefined ? undefined : { lt: options.beforeSeq },
      ...(options.firstRepositoryIn === undefined
        ? {}
        : {
            OR: [
              { previewAccess: "public" },
              {
                previewAccess: null,
                repositories: { some: { position: 0, alias: { in: options.firstRepositoryIn } } },
              },
            ],
          }),
    },
    orderBy: { seq: "desc" },
    take: options.limit,
    include: { repositories: { orderBy: { position: "asc" } } },
  });
}

/** What decides who may see a build (lib/builds/visibility.ts), without the rest of it; null when there is none. */
export async function findBuildAccessFacts(
  id: string,
): Promise<{ previewAccess: string | null; repositories: { alias: string; position: number }[] } | null> {
  // One indexed statement: asked before every log read and stream of a stranger.
  const row = await queryOne<{ alias: string | null; previewAccess: string | null }>(
    `SELECT b."previewAccess", (SELECT r."alias" FROM "BuildRepository" r WHERE r."buildId" = b."id" AND r."position" = 0) AS "alias"
     FROM "Build" b WHERE b."id" = ?`,
    [id],
  );
  if (!row) return null;
  return {
    previewAccess: row.previewAccess,
    repositories: row.alias === null ? [] : [{ alias: row.alias, position: 0 }],
  };
}

export async function findBuildSeq(id: string): Promise<number | null> {
  const row = await getDb().build.findUnique({ where: { id }, select: { seq: true } });
  return row?.seq ?? null;
}

/**
 * Which builds a host looks after (their runtime, port, workspace and logs are on it): `undefined`, every build
 * (SQLite: one instance); a name, the builds that instance claimed and those claimed by none (made before builds
 * had a host).
 */
export type HostScope = string | undefined;

function onHost(host: HostScope): Prisma.BuildWhereInput {
  return host === undefined ? {} : { OR: [{ host }, { host: null }] };
}

export function listBuildsWithStatus(statuses: readonly BuildStatus[], host?: HostScope): Promise<BuildRecord[]> {
  return getDb().build.findMany({
    where: { status: { in: [...statuses] }, ...onHost(host) },
    orderBy: { seq: "asc" },
    include: withDetails,
  });
}

/**
 * Builds that are over but still hold a port or a runtime handle (a destroy that could not finish, or a DELETE
 * made while their host was lost: lib/builds/actions/destroy.ts destroyBuildOfLostHost), and DELETEs left halfway.
 */
export function listBuildsAwaitingDestroy(host?: HostScope): Promise<BuildRecord[]> {
  return getDb().build.findMany({
    where: {
      AND: [onHost(host)],
      OR: [
        {
          status: { in: ["failed", "canceled", "expired", "destroyed"] },
          OR: [{ port: { not: null } }, { runtimeHandle: { not: null } }],
        },
        { status: "destroying" },
      ],
    },
    orderBy: { seq: "asc" },
    include: withDetails,
  });
}

/** Running and sleeping builds past their expiry: a sleeping build's time to live goes on counting. */
export function listExpiredRunningBuilds(now: Date, host?: HostScope): Promise<BuildRecord[]> {
  return getDb().build.findMany({
    where: { status: { in: ["running", "sleeping"] }, expiresAt: { lte: now }, ...onHost(host) },
    include: withDetails,
  });
}

/** The seq of every queued build, oldest first: a queued build's position is its index here plus one. */
export async function listQueuedSeqs(): Promise<number[]> {
  const rows = await getDb().build.findMany({
    where: { status: "queued" },
    orderBy: { seq: "asc" },
    select: { seq: true },
  });
  return rows.map((row) => row.seq);
}

export async function countQueuedBuilds(): Promise<number> {
  const row = await queryOne<{ queued: number }>(
    `SELECT CAST(COUNT(*) AS INTEGER) AS "queued" FROM "Build" WHERE "status" = 'queued'`,
  );
  return row!.queued;
}

/** A queued build's place in the queue, from 1. */
export async function queuePosition(seq: number): Promise<number> {
  const row = await queryOne<{ ahead: number }>(
    `SELECT CAST(COUNT(*) AS INTEGER) AS "ahead" FROM "Build" WHERE "status" = 'queued' AND "seq" < ?`,
    [seq],
  );
  return row!.ahead + 1;
}

/** Statuses of builds that are over: their rows and logs are kept for retention_days, then purged. */
export const ENDED_STATUSES: readonly BuildStatus[] = ["failed", "canceled", "expired", "destroyed"];

/** What moveBuild may set along with the status: the SQL names come from here, never from a caller. */
const MOVE_COLUMNS = ["startedAt", "finishedAt", "expiresAt", "failureStage", "failureMessage", "awakeSince"] as const;
type MoveData = Partial<{
  startedAt: Date;
  finishedAt: Date;
  expiresAt: Date;
  failureStage: string;
  failureMessage: string;
  awakeSince: Date;
}>;

/**
 * Sets `values` (column names from the constant lists here, never from a caller) in the rows of `table` that
 * match `where`; returns how many changed.
 */
function updateRows(
  table: "Build" | "BuildStage",
  values: Record<string, unknown>,
  where: string,
  whereArgs: unknown[],
): Promise<number> {
  const columns = Object.keys(values);
  const source = `UPDATE "${table}" SET ${columns.map((column) => `"${column}" = ?`).join(", ")} WHERE ${where}`;
  return execute(source, [...columns.map((column) => values[column]), ...whereArgs]);
}

/** The entries of `data` whose column is in `columns` and whose value is given (null included). */
function pick<T extends string>(columns: readonly T[], data: Partial<Record<T, unknown>>): Record<string, unknown> {
  return Object.fromEntries(
    columns.filter((column) => data[column] !== undefined).map((column) => [column, data[column]]),
  );
}

/**
 * Moves a build from `from` to `to` if the table allows it and nobody moved it meanwhile (the update only
 * matches the status that was read). Returns whether it moved.
 */
export async function moveBuild(id: string, from: BuildStatus, to: BuildStatus, data: MoveData = {}): Promise<boolean> {
  if (!canMove(from, to)) throw new Error(`A build cannot move from ${from} to ${to}.`);
  const values = { status: to, ...pick(MOVE_COLUMNS, data) };
  // Retention (lib/builds/queue/retention.ts) counts from the last time a build reached an end.
  const ended = ENDED_STATUSES.includes(to) ? { endedAt: new Date() } : {};
  const count = await updateRows("Build", { ...values, ...ended }, `"id" = ? AND "status" = ?`, [id, from]);
  if (count === 1) {
    buildEvents().emit("changed", id);
    buildEvents().emit("moved", id, to);
  }
  return count === 1;
}

/**
 * Claims the oldest queued build for `host`: moves it to checking_out, with `host` and its start time, in one
 * statement, and returns its id; null when none is queued. On PostgreSQL the row is locked by the claim and
 * skipped by the others (FOR UPDATE SKIP LOCKED), so instances claiming together take different builds without
 * waiting for each other; SQLite runs one write at a time, so the same statement is atomic there as it is.
 * A cancel of a queued build moves it only from queued: whichever of the two comes first wins.
 */
export async function claimQueuedBuild(host: string, now: Date): Promise<string | null> {
  // One statement: on PostgreSQL one round trip, its row lock held no longer than the statement.
  const claimed = await executeReturningOne<{ id: string }>(
    {
      sqlite: `
        UPDATE "Build" SET "status" = 'checking_out', "host" = ?, "startedAt" = ?
        WHERE "id" = (SELECT "id" FROM "Build" WHERE "status" = 'queued' ORDER BY "seq" LIMIT 1) AND "status" = 'queued'
        RETURNING "id"`,
      postgresql: `
        UPDATE "Build" SET "status" = 'checking_out', "host" = ?, "startedAt" = CAST(? AS TIMESTAMP(3))
        WHERE "id" = (SELECT "id" FROM "Build" WHERE "status" = 'queued' ORDER BY "seq" LIMIT 1 FOR UPDATE SKIP LOCKED) AND "status" = 'queued'
        RETURNING "id"`,
    },
    [host, now],
  );
  if (!claimed) return null;
  buildEvents().emit("changed", claimed.id);
  buildEvents().emit("moved", claimed.id, "checking_out");
  return claimed.id;
}

const IN_PROGRESS_SQL = IN_PROGRESS_STATUSES.map((status) => `'${status}'`).join(", ");

/**
 * Fails the builds a lost host had in progress (lib/cluster/lost-hosts.ts), in one conditional UPDATE: two
 * instances noticing the loss together fail each build once, and a host that came back first (its recovery)
 * leaves nothing to fail. Their open stages are closed; the stages' handles, the port and the runtime handle
 * stay recorded for that host to stop and free when it comes back. Returns the builds failed.
 */
export async function failInProgressBuildsOfHost(host: string, message: string, now: Date): Promise<string[]> {
  const failed = await transaction("write", function* () {
    const rows = yield* all<{ id: string }>(
      `UPDATE "Build" SET "status" = 'failed', "failureStage" = 'recovery', "failureMessage" = ?, "finishedAt" = ?, "endedAt" = ?
       WHERE "host" = ? AND "status" IN (${IN_PROGRESS_SQL})
       RETURNING "id"`,
      [message, now, now, host],
    );
    for (const { id } of rows) {
      yield* run(
        `UPDATE "BuildStage" SET "status" = 'failed', "finishedAt" = ? WHERE "buildId" = ? AND "status" = 'running'`,
        [now, id],
      );
      yield* run(`UPDATE "BuildStage" SET "status" = 'skipped' WHERE "buildId" = ? AND "status" = 'pending'`, [id]);
    }
    return rows.map((row) => row.id);
  });
  for (const id of failed) {
    buildEvents().emit("changed", id);
    buildEvents().emit("moved", id, "failed");
  }
  return failed;
}

const RUNTIME_COLUMNS = ["port", "runtimeHandle"] as const;

export async function updateBuildRuntime(
  id: string,
  data: { port?: number | null; runtimeHandle?: string | null },
): Promise<void> {
  const values = pick(RUNTIME_COLUMNS, data);
  if (Object.keys(values).length > 0) await updateRows("Build", values, `"id" = ?`, [id]);
}

/** A build that asked for a fresh install: its install stage does not restore from the install cache. */
export async function disableInstallCache(id: string): Promise<void> {
  await updateRows("Build", { installCache: false }, `"id" = ?`, [id]);
}

/** The columns updateStage may set: the SQL names come from here, never from a caller. */
const STAGE_COLUMNS = ["status", "startedAt", "finishedAt", "exitCode", "handle", "logFile", "cached"] as const;

export async function updateStage(
  buildId: string,
  name: StageName,
  data: {
    status?: StageStatus;
    startedAt?: Date;
    finishedAt?: Date;
    exitCode?: number | null;
    handle?: string | null;
    logFile?: string;
    cached?: boolean;
  },
  /** Only while the build has this status (a compare-and-set on the build): false when it moved on. */
  whileBuildIs?: BuildStatus,
): Promise<boolean> {
  const values = pick(STAGE_COLUMNS, data);
  if (Object.keys(values).length === 0) return true;
  const count =
    whileBuildIs === undefined
      ? await updateRows("BuildStage", values, `"buildId" = ? AND "name" = ?`, [buildId, name])
      : await updateRows(
          "BuildStage",
          values,
          `"buildId" = ? AND "name" = ? AND EXISTS (SELECT 1 FROM "Build" WHERE "id" = ? AND "status" = ?)`,
          [buildId, name, buildId, whileBuildIs],
        );
  if (count > 0) buildEvents().emit("changed", buildId);
  return count > 0;
}

/** Marks the stages that never started `to` (skipped, canceled). */
export async function closePendingStages(buildId: string, to: StageStatus) {
  const { count } = await getDb().buildStage.updateMany({
    where: { buildId, status: "pending" },
    data: { status: to },
  });
  if (count > 0) buildEvents().emit("changed", buildId);
}

/** Closes the stages that never finished: running ones get `runningTo`, pending ones `pendingTo`. */
export async function closeOpenStages(buildId: string, runningTo: StageStatus, pendingTo: StageStatus, at: Date) {
  await getDb().buildStage.updateMany({
    where: { buildId, status: "running" },
    data: { status: runningTo, finishedAt: at, handle: null },
  });
  await closePendingStages(buildId, pendingTo);
  buildEvents().emit("changed", buildId);
}

/** Moves a running build's expiry, only if it is still `currentExpiry` (compare-and-set), with the
 * whole time to live that makes; false when it is no longer running or its expiry moved meanwhile. */
export async function setRunningBuildExpiry(
  id: string,
  currentExpiry: Date,
  expiresAt: Date,
  ttlSeconds: number,
): Promise<boolean> {
  // An extension counts as use: max_awake_builds puts the builds awake longest without one to sleep first.
  const count = await updateRows(
    "Build",
    { expiresAt, ttlSeconds, awakeSince: new Date() },
    `"id" = ? AND "status" = 'running' AND "expiresAt" = ?`,
    [id, currentExpiry],
  );
  if (count === 1) buildEvents().emit("changed", id);
  return count === 1;
}

/** Whether an automatic build (any status) was ever made of this repository's commit. */
export async function findAutomaticBuildOfCommit(
  alias: string,
  commitSha: string,
  triggers: readonly string[],
  bundle: { name: string; branch: string } | null = null,
) {
  return getDb().build.findFirst({
    where: {
      trigger: { in: [...triggers] },
      repositories: { some: { alias, commitSha } },
      // A bundle's build of another branch may hold this commit as that branch's base: it builds another thing.
      ...(bundle === null ? { bundle: null } : { bundle: bundle.name, branch: bundle.branch }),
    },
    select: { id: true, status: true },
    orderBy: { seq: "desc" },
  });
}

/**
 * The automatic builds following a branch, oldest first: those of a bundle's branch (`bundle`), or those of one
 * repository at that ref (a branch or a pull request's head).
 */
export function listAutomaticBuildsOfBranch(
  alias: string,
  branch: string,
  triggers: readonly string[],
  statuses: readonly BuildStatus[],
  bundle: string | null = null,
) {
  return getDb().build.findMany({
    where: {
      trigger: { in: [...triggers] },
      status: { in: [...statuses] },
      ...(bundle === null ? { bundle: null, repositories: { some: { alias, ref: branch } } } : { bundle, branch }),
    },
    orderBy: { seq: "asc" },
    include: withDetails,
  });
}

/**
 * Builds that are over and ended before `cutoff`. Rows made before endedAt existed fall back to when the
 * build stopped working, then to when it was created.
 */
export function listBuildsEndedBefore(cutoff: Date, limit: number, host?: HostScope) {
  return getDb().build.findMany({
    where: {
      status: { in: [...ENDED_STATUSES] },
      AND: [onHost(host)],
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
