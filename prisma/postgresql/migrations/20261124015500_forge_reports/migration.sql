-- Issue 21: what each build told the git host (commit statuses, pull request comments) and whether it arrived;
-- and the one comment per pull request that is edited in place. (PostgreSQL twin of SQLite's migration.)
-- CreateTable
CREATE TABLE "ForgeReport" (
    "id" SERIAL NOT NULL,
    "buildId" TEXT NOT NULL,
    "alias" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "outcome" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL,
    "error" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ForgeReport_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "PullRequestComment" (
    "id" SERIAL NOT NULL,
    "alias" TEXT NOT NULL,
    "number" INTEGER NOT NULL,
    "commentId" TEXT NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "PullRequestComment_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "ForgeReport_buildId_id_idx" ON "ForgeReport"("buildId", "id");

-- CreateIndex
CREATE UNIQUE INDEX "PullRequestComment_alias_number_key" ON "PullRequestComment"("alias", "number");

-- AddForeignKey
ALTER TABLE "ForgeReport" ADD CONSTRAINT "ForgeReport_buildId_fkey" FOREIGN KEY ("buildId") REFERENCES "Build"("id") ON DELETE CASCADE ON UPDATE CASCADE;
