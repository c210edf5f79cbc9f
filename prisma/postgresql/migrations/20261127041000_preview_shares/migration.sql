-- Share links of a build's preview: only the SHA-256 of each link's secret is kept.
-- CreateTable
CREATE TABLE "PreviewShare" (
    "id" TEXT NOT NULL,
    "buildId" TEXT NOT NULL,
    "secretHash" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "createdById" INTEGER,
    "createdBy" TEXT NOT NULL,

    CONSTRAINT "PreviewShare_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "PreviewShare_secretHash_key" ON "PreviewShare"("secretHash");

-- CreateIndex
CREATE INDEX "PreviewShare_buildId_expiresAt_idx" ON "PreviewShare"("buildId", "expiresAt");

-- AddForeignKey
ALTER TABLE "PreviewShare" ADD CONSTRAINT "PreviewShare_buildId_fkey" FOREIGN KEY ("buildId") REFERENCES "Build"("id") ON DELETE CASCADE ON UPDATE CASCADE;
