import { runQuery } from "..";
import { advisoryLockKey, executeReturningOne, run, transaction } from "../hot-sql";

/**
 * Inserts a queued build, its repositories and its stages, unless the queue or its creator's bounds are full:
 * the row of Build goes in by one statement that counts the queue (and the creator's live and queued builds) in
 * its WHERE, so simultaneous requests cannot all take the last place; the rest follows only if that row went in.
 * A null bound is no bound. True when the build went in.
 *
 * SQLite serialises write transactions already, so one transaction of three statements does it. PostgreSQL does
 * the same work in one call of the function `enqueue_build` (its migration 20261124150000_enqueue_build), which
 * takes the queue's advisory lock: a lock taken by a transaction of ours would be held across its round trips,
 * each waiting for this instance's event loop, busy with the other requests of a burst, while every other
 * instance's post waits (docs/performance.md, On PostgreSQL).
 */
export interface QueuedBuildRow {
  id: string;
  modules: readonly string[];
  ttlSeconds: number;
  createdAt: Date;
  createdById: number | null;
  createdBy: string;
  trigger: string;
  triggeredBy: string | null;
  driver: string;
  repositories: readonly {
    position: number;
    alias: string;
    ref: string;
    commitSha: string;
    commitSubject: string | null;
    commitAuthor: string | null;
  }[];
  stages: readonly string[];
}

export interface QueueBounds {
  maxQueued: number;
  /** The statuses that count as a user's live builds. */
  liveStatuses: readonly string[];
  /** The creator's bounds; null: none. */
  live: number | null;
  queued: number | null;
}

export function enqueueBuildRow(build: QueuedBuildRow, bounds: QueueBounds): Promise<boolean> {
  return runQuery({
    sqlite: () => enqueueOnSqlite(build, bounds),
    postgresql: () => enqueueOnPostgresql(build, bounds),
  });
}

async function enqueueOnPostgresql(build: QueuedBuildRow, bounds: QueueBounds): Promise<boolean> {
  const { id, modules, ttlSeconds, createdAt, createdById, createdBy, trigger, triggeredBy, driver } = build;
  const row = await executeReturningOne<{ inserted: boolean }>(
    `SELECT "enqueue_build"(CAST(? AS INTEGER), CAST(? AS JSON), CAST(? AS JSON), CAST(? AS JSON), CAST(? AS INTEGER), CAST(? AS TEXT[]), CAST(? AS INTEGER), CAST(? AS INTEGER)) AS "inserted"`,
    [
      advisoryLockKey("buildQueue"),
      // As Prisma stores DateTime: UTC, which timestamp(3) keeps as written (its zone is ignored).
      JSON.stringify({
        id,
        modules: modules.join(","),
        ttlSeconds,
        createdAt: createdAt.toISOString(),
        createdById,
        createdBy,
        trigger,
        triggeredBy,
        driver,
      }),
      JSON.stringify(build.repositories),
      JSON.stringify(build.stages),
      bounds.maxQueued,
      bounds.liveStatuses,
      bounds.live,
      bounds.queued,
    ],
  );
  return row!.inserted;
}

function enqueueOnSqlite(build: QueuedBuildRow, bounds: QueueBounds): Promise<boolean> {
  return transaction("write", function* () {
    const changes = yield* run(
      `INSERT INTO "Build" ("id", "status", "modules", "ttlSeconds", "createdAt", "expiresAt", "createdById", "createdBy", "trigger", "triggeredBy", "driver")
       SELECT ?, 'queued', ?, ?, ?, NULL, ?, ?, ?, ?, ?
       WHERE (SELECT COUNT(*) FROM "Build" WHERE "status" = 'queued') < ?
         AND (? IS NULL OR (SELECT COUNT(*) FROM "Build" WHERE "status" IN (SELECT "value" FROM json_each(?)) AND "createdById" = ?) < ?)
         AND (? IS NULL OR (SELECT COUNT(*) FROM "Build" WHERE "status" = 'queued' AND "createdById" = ?) < ?)`,
      [
        build.id,
        build.modules.join(","),
        build.ttlSeconds,
        build.createdAt,
        build.createdById,
        build.createdBy,
        build.trigger,
        build.triggeredBy,
        build.driver,
        bounds.maxQueued,
        bounds.live,
        JSON.stringify(bounds.liveStatuses),
        build.createdById,
        bounds.live,
        bounds.queued,
        build.createdById,
        bounds.queued,
      ],
    );
    if (changes !== 1) return false;
    yield* run(
      `INSERT INTO "BuildRepository" ("buildId", "position", "alias", "ref", "commitSha", "commitSubject", "commitAuthor")
       SELECT ?, json_extract("value", '$.position'), json_extract("value", '$.alias'), json_extract("value", '$.ref'),
              json_extract("value", '$.commitSha'), json_extract("value", '$.commitSubject'), json_extract("value", '$.commitAuthor')
       FROM json_each(?)`,
      [build.id, JSON.stringify(build.repositories)],
    );
    yield* run(
      `INSERT INTO "BuildStage" ("buildId", "position", "name", "status") SELECT ?, "key", "value", 'pending' FROM json_each(?)`,
      [build.id, JSON.stringify(build.stages)],
    );
    return true;
  });
}
