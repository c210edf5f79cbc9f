-- Inserts a queued build with its repositories and its stages, unless the queue or its creator's limits are
-- full; returns whether it went in. lib/builds/repository.ts (insertQueuedBuild) calls it on PostgreSQL; SQLite
-- runs the same statements as a transaction of its own.
--
-- Why a function: two posts counting the queue at once must not both take its last place, so the count and the
-- insert hold the queue's advisory lock. Taken by a transaction of the app, that lock was held across every round
-- trip to the commit, each waiting for a busy instance's event loop, while every post of every instance waited for
-- it (docs/performance.md, On PostgreSQL). Here it is held only while this runs in the server, and the call is one
-- round trip, committed by itself. Each statement of a VOLATILE function takes a fresh snapshot under READ
-- COMMITTED, so the counts below, made after the lock is granted, see every build inserted before it.
CREATE FUNCTION "enqueue_build"(
  "lock_key" INTEGER,
  "new_build" JSON,
  "new_repositories" JSON,
  "new_stages" JSON,
  "max_queued" INTEGER,
  "live_statuses" TEXT[],
  "live_limit" INTEGER,
  "queued_limit" INTEGER
) RETURNS BOOLEAN LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  "inserted_id" TEXT;
BEGIN
  PERFORM pg_advisory_xact_lock("lock_key", hashtext(''));
  -- A NULL limit is no limit. The time to live starts at running (the executor sets expiresAt then).
  INSERT INTO "Build" ("id", "status", "modules", "ttlSeconds", "createdAt", "expiresAt", "createdById", "createdBy", "trigger", "triggeredBy", "driver")
  SELECT "b"."id", 'queued', "b"."modules", "b"."ttlSeconds", "b"."createdAt", NULL, "b"."createdById", "b"."createdBy", "b"."trigger", "b"."triggeredBy", "b"."driver"
  FROM json_to_record("new_build") AS "b"("id" TEXT, "modules" TEXT, "ttlSeconds" INTEGER, "createdAt" TIMESTAMP(3), "createdById" INTEGER, "createdBy" TEXT, "trigger" TEXT, "triggeredBy" TEXT, "driver" TEXT)
  WHERE (SELECT COUNT(*) FROM "Build" WHERE "status" = 'queued') < "max_queued"
    AND ("live_limit" IS NULL OR (SELECT COUNT(*) FROM "Build" WHERE "status" = ANY("live_statuses") AND "createdById" = "b"."createdById") < "live_limit")
    AND ("queued_limit" IS NULL OR (SELECT COUNT(*) FROM "Build" WHERE "status" = 'queued' AND "createdById" = "b"."createdById") < "queued_limit")
  RETURNING "id" INTO "inserted_id";
  IF "inserted_id" IS NULL THEN
    RETURN FALSE;
  END IF;
  INSERT INTO "BuildRepository" ("buildId", "position", "alias", "ref", "commitSha", "commitSubject", "commitAuthor")
  SELECT "inserted_id", "r"."position", "r"."alias", "r"."ref", "r"."commitSha", "r"."commitSubject", "r"."commitAuthor"
  FROM json_to_recordset("new_repositories") AS "r"("position" INTEGER, "alias" TEXT, "ref" TEXT, "commitSha" TEXT, "commitSubject" TEXT, "commitAuthor" TEXT);
  INSERT INTO "BuildStage" ("buildId", "position", "name", "status")
  SELECT "inserted_id", CAST("s"."position" - 1 AS INTEGER), "s"."name", 'pending'
  FROM json_array_elements_text("new_stages") WITH ORDINALITY AS "s"("name", "position");
  RETURN TRUE;
END;
$$;
