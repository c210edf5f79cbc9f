-- AlterTable
ALTER TABLE "Build" ADD COLUMN "host" TEXT;

-- CreateTable
CREATE TABLE "Instance" (
    "name" TEXT NOT NULL PRIMARY KEY,
    "url" TEXT,
    "startedAt" DATETIME NOT NULL,
    "heartbeatAt" DATETIME NOT NULL,
    "builderSlots" INTEGER NOT NULL,
    "buildsSettings" TEXT NOT NULL,
    "buildsFingerprint" TEXT NOT NULL
);

-- CreateIndex
CREATE INDEX "Instance_heartbeatAt_idx" ON "Instance"("heartbeatAt");

-- CreateIndex
CREATE INDEX "Build_host_status_idx" ON "Build"("host", "status");

