-- AlterTable
ALTER TABLE "BuildRepository" ADD COLUMN "commitAuthor" TEXT;
ALTER TABLE "BuildRepository" ADD COLUMN "commitSubject" TEXT;

-- CreateTable
CREATE TABLE "AutoBranchHead" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "alias" TEXT NOT NULL,
    "branch" TEXT NOT NULL,
    "commitSha" TEXT NOT NULL,
    "pending" BOOLEAN NOT NULL DEFAULT false,
    "trigger" TEXT NOT NULL,
    "triggeredBy" TEXT,
    "noticedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Build" (
    "seq" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "id" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "modules" TEXT NOT NULL,
    "ttlSeconds" INTEGER NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "startedAt" DATETIME,
    "finishedAt" DATETIME,
    "expiresAt" DATETIME,
    "endedAt" DATETIME,
    "failureStage" TEXT,
    "failureMessage" TEXT,
    "createdById" INTEGER,
    "createdBy" TEXT NOT NULL,
    "trigger" TEXT NOT NULL DEFAULT 'manual',
    "triggeredBy" TEXT,
    "port" INTEGER,
    "runtimePgid" INTEGER
);
INSERT INTO "new_Build" ("createdAt", "createdBy", "createdById", "expiresAt", "failureMessage", "failureStage", "finishedAt", "id", "modules", "port", "runtimePgid", "seq", "startedAt", "status", "ttlSeconds") SELECT "createdAt", "createdBy", "createdById", "expiresAt", "failureMessage", "failureStage", "finishedAt", "id", "modules", "port", "runtimePgid", "seq", "startedAt", "status", "ttlSeconds" FROM "Build";
DROP TABLE "Build";
ALTER TABLE "new_Build" RENAME TO "Build";
CREATE UNIQUE INDEX "Build_id_key" ON "Build"("id");
CREATE INDEX "Build_status_seq_idx" ON "Build"("status", "seq");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE INDEX "AutoBranchHead_pending_noticedAt_idx" ON "AutoBranchHead"("pending", "noticedAt");

-- CreateIndex
CREATE UNIQUE INDEX "AutoBranchHead_alias_branch_key" ON "AutoBranchHead"("alias", "branch");

-- CreateIndex
CREATE INDEX "BuildRepository_alias_commitSha_idx" ON "BuildRepository"("alias", "commitSha");


-- The time to live now starts at running: builds not yet running have no expiry.
UPDATE "Build" SET "expiresAt" = NULL WHERE "status" IN ('queued', 'checking_out', 'installing', 'testing', 'starting');
