import { runQuery } from "..";
import { all, asPrismaRow, get, queryOne, transaction } from "../hot-sql";
import { parseUtcTimestamp } from "../postgresql";

/**
 * A build's row with its repositories and its stages, each list in order, as Prisma's
 * `include: { repositories, stages }` gives it (Dates as Dates): read on every request about a build.
 *
 * On SQLite one read transaction of three prepared statements, a few microseconds. On PostgreSQL one statement,
 * so one round trip where a transaction of three reads takes five: each waits for this instance's event loop,
 * which a burst of requests keeps busy (docs/performance.md, On PostgreSQL). One statement reads one snapshot, as
 * the transaction does. Its lists come as JSON, whose timestamps carry no zone, as in a row: they hold UTC
 * (lib/db/postgresql.ts parseUtcTimestamp).
 */
export function readBuildWithDetails<T>(id: string): Promise<T | null> {
  return runQuery({
    sqlite: () => transaction("read", () => readOnSqlite<T>(id)),
    postgresql: () => readOnPostgresql<T>(id),
  });
}

/** The columns Prisma reads as Dates (SQLite keeps them as text). */
const BUILD_DATES = ["createdAt", "startedAt", "finishedAt", "expiresAt", "endedAt", "awakeSince"] as const;
const STAGE_DATES = ["startedAt", "finishedAt"] as const;
/** And as booleans (SQLite keeps them as 0 and 1). */
const BUILD_BOOLEANS = ["installCache"] as const;
const STAGE_BOOLEANS = ["cached"] as const;

async function readOnPostgresql<T>(id: string): Promise<T | null> {
  const row = await queryOne<
    Record<string, unknown> & { buildRepositories: unknown[]; buildStages: Record<string, unknown>[] }
  >(
    `SELECT "b".*,
       COALESCE((SELECT json_agg("r" ORDER BY "r"."position") FROM "BuildRepository" AS "r" WHERE "r"."buildId" = "b"."id"), '[]') AS "buildRepositories",
       COALESCE((SELECT json_agg("s" ORDER BY "s"."position") FROM "BuildStage" AS "s" WHERE "s"."buildId" = "b"."id"), '[]') AS "buildStages"
     FROM "Build" AS "b" WHERE "b"."id" = ?`,
    [id],
  );
  if (!row) return null;
  const { buildRepositories, buildStages, ...build } = row;
  const stages = buildStages.map((stage) => {
    for (const column of STAGE_DATES)
      if (typeof stage[column] === "string") stage[column] = parseUtcTimestamp(stage[column]);
    return stage;
  });
  return { ...build, repositories: buildRepositories, stages } as T;
}

function* readOnSqlite<T>(id: string) {
  const build = yield* get(`SELECT * FROM "Build" WHERE "id" = ?`, [id]);
  if (!build) return null;
  const repositories = yield* all(`SELECT * FROM "BuildRepository" WHERE "buildId" = ? ORDER BY "position"`, [id]);
  const stages = (yield* all(`SELECT * FROM "BuildStage" WHERE "buildId" = ? ORDER BY "position"`, [id])).map((stage) =>
    asPrismaRow<Record<string, unknown>>(stage, { dates: STAGE_DATES, booleans: STAGE_BOOLEANS }),
  );
  return {
    ...asPrismaRow<Record<string, unknown>>(build, { dates: BUILD_DATES, booleans: BUILD_BOOLEANS }),
    repositories,
    stages,
  } as T;
}
