-- Each fetch of the central bank's page and how it ended, for GET /rates/status (lib/rates/fetch-log.ts).
-- CreateTable
CREATE TABLE "RateFetch" (
    "id" SERIAL NOT NULL,
    "trigger" TEXT NOT NULL,
    "startedAt" TIMESTAMP(3) NOT NULL,
    "finishedAt" TIMESTAMP(3) NOT NULL,
    "outcome" TEXT NOT NULL,
    "valueDate" TEXT,
    "dollar" TEXT,
    "currencies" TEXT,
    "failureKind" TEXT,
    "detail" TEXT,

    CONSTRAINT "RateFetch_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "RateFetch_outcome_finishedAt_idx" ON "RateFetch"("outcome", "finishedAt");

-- CreateIndex
CREATE INDEX "RateFetch_finishedAt_idx" ON "RateFetch"("finishedAt");

