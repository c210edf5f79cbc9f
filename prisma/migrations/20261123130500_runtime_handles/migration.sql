-- Runtime handles become opaque text owned by the build's driver (lib/builds/drivers). A recorded process
-- group id is kept as the process driver's handle without a start time: that driver then accepts a process
-- as the build's only if its environment names the build (BUILD_ID), never by the id alone.
ALTER TABLE "Build" ADD COLUMN "driver" TEXT NOT NULL DEFAULT 'process';
ALTER TABLE "Build" ADD COLUMN "runtimeHandle" TEXT;
UPDATE "Build" SET "runtimeHandle" = '{"pgid":' || "runtimePgid" || '}' WHERE "runtimePgid" IS NOT NULL;
ALTER TABLE "Build" DROP COLUMN "runtimePgid";

ALTER TABLE "BuildStage" ADD COLUMN "handle" TEXT;
UPDATE "BuildStage" SET "handle" = '{"pgid":' || "pgid" || '}' WHERE "pgid" IS NOT NULL;
ALTER TABLE "BuildStage" DROP COLUMN "pgid";
