-- AlterTable
ALTER TABLE "Build" ADD COLUMN     "branch" TEXT,
ADD COLUMN     "bundle" TEXT,
ADD COLUMN     "logErrors" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "logWarnings" INTEGER NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "BuildRepository" ADD COLUMN     "refReason" TEXT;

-- CreateTable
CREATE TABLE "BuildLogError" (
    "id" SERIAL NOT NULL,
    "buildId" TEXT NOT NULL,
    "stage" TEXT NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "cleaned" TEXT NOT NULL,
    "raw" TEXT NOT NULL,
    "branch" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "BuildLogError_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "BuildLogError_fingerprint_createdAt_idx" ON "BuildLogError"("fingerprint", "createdAt");

-- CreateIndex
CREATE INDEX "BuildLogError_createdAt_idx" ON "BuildLogError"("createdAt");

-- CreateIndex
CREATE INDEX "BuildLogError_buildId_idx" ON "BuildLogError"("buildId");

-- AddForeignKey
ALTER TABLE "BuildLogError" ADD CONSTRAINT "BuildLogError_buildId_fkey" FOREIGN KEY ("buildId") REFERENCES "Build"("id") ON DELETE CASCADE ON UPDATE CASCADE;

