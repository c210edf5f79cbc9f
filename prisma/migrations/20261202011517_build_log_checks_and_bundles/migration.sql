-- AlterTable
ALTER TABLE "BuildRepository" ADD COLUMN "refReason" TEXT;

-- CreateTable
CREATE TABLE "BuildLogError" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "buildId" TEXT NOT NULL,
    "stage" TEXT NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "cleaned" TEXT NOT NULL,
    "raw" TEXT NOT NULL,
    "branch" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "BuildLogError_buildId_fkey" FOREIGN KEY ("buildId") REFERENCES "Build" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- AlterTable: columns added in place, so the table is not copied
ALTER TABLE "Build" ADD COLUMN "bundle" TEXT;
ALTER TABLE "Build" ADD COLUMN "branch" TEXT;
ALTER TABLE "Build" ADD COLUMN "logErrors" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "Build" ADD COLUMN "logWarnings" INTEGER NOT NULL DEFAULT 0;

-- CreateIndex
CREATE INDEX "BuildLogError_fingerprint_createdAt_idx" ON "BuildLogError"("fingerprint", "createdAt");

-- CreateIndex
CREATE INDEX "BuildLogError_createdAt_idx" ON "BuildLogError"("createdAt");

-- CreateIndex
CREATE INDEX "BuildLogError_buildId_idx" ON "BuildLogError"("buildId");

