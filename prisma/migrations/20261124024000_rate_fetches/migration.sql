-- Each fetch of the central bank's page and how it ended, for GET /rates/status (lib/rates/fetch-log.ts).
-- CreateTable
CREATE TABLE "RateFetch" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "trigger" TEXT NOT NULL,
    "startedAt" DATETIME NOT NULL,
    "finishedAt" DATETIME NOT NULL,
    "outcome" TEXT NOT NULL,
    "valueDate" TEXT,
    "dollar" TEXT,
    "currencies" TEXT,
    "failureKind" TEXT,
    "detail" TEXT
);

-- CreateIndex
CREATE INDEX "RateFetch_outcome_finishedAt_idx" ON "RateFetch"("outcome", "finishedAt");

-- CreateIndex
CREATE INDEX "RateFetch_finishedAt_idx" ON "RateFetch"("finishedAt");

