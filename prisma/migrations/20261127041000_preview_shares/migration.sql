-- Share links of a build's preview: only the SHA-256 of each link's secret is kept.
-- CreateTable
CREATE TABLE "PreviewShare" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "buildId" TEXT NOT NULL,
    "secretHash" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" DATETIME NOT NULL,
    "createdById" INTEGER,
    "createdBy" TEXT NOT NULL,
    CONSTRAINT "PreviewShare_buildId_fkey" FOREIGN KEY ("buildId") REFERENCES "Build" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE UNIQUE INDEX "PreviewShare_secretHash_key" ON "PreviewShare"("secretHash");

-- CreateIndex
CREATE INDEX "PreviewShare_buildId_expiresAt_idx" ON "PreviewShare"("buildId", "expiresAt");
