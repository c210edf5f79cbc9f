-- AlterTable
ALTER TABLE "Build" ADD COLUMN     "host" TEXT;

-- CreateTable
CREATE TABLE "Instance" (
    "name" TEXT NOT NULL,
    "url" TEXT,
    "startedAt" TIMESTAMP(3) NOT NULL,
    "heartbeatAt" TIMESTAMP(3) NOT NULL,
    "builderSlots" INTEGER NOT NULL,
    "buildsSettings" TEXT NOT NULL,
    "buildsFingerprint" TEXT NOT NULL,

    CONSTRAINT "Instance_pkey" PRIMARY KEY ("name")
);

-- CreateIndex
CREATE INDEX "Instance_heartbeatAt_idx" ON "Instance"("heartbeatAt");

-- CreateIndex
CREATE INDEX "Build_host_status_idx" ON "Build"("host", "status");

