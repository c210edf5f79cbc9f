-- AlterTable
ALTER TABLE "Build" ADD COLUMN "previewAccess" TEXT;

-- CreateTable
CREATE TABLE "BranchPreviewAccess" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "alias" TEXT NOT NULL,
    "ref" TEXT NOT NULL,
    "access" TEXT NOT NULL,
    "chosenAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_PreviewShare" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "buildId" TEXT NOT NULL,
    "secretHash" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" DATETIME NOT NULL,
    "createdById" INTEGER,
    "createdBy" TEXT NOT NULL,
    "scope" TEXT NOT NULL DEFAULT 'build',
    "alias" TEXT,
    "ref" TEXT,
    CONSTRAINT "PreviewShare_buildId_fkey" FOREIGN KEY ("buildId") REFERENCES "Build" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_PreviewShare" ("buildId", "createdAt", "createdBy", "createdById", "expiresAt", "id", "secretHash") SELECT "buildId", "createdAt", "createdBy", "createdById", "expiresAt", "id", "secretHash" FROM "PreviewShare";
DROP TABLE "PreviewShare";
ALTER TABLE "new_PreviewShare" RENAME TO "PreviewShare";
CREATE UNIQUE INDEX "PreviewShare_secretHash_key" ON "PreviewShare"("secretHash");
CREATE INDEX "PreviewShare_buildId_expiresAt_idx" ON "PreviewShare"("buildId", "expiresAt");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE UNIQUE INDEX "BranchPreviewAccess_alias_ref_key" ON "BranchPreviewAccess"("alias", "ref");

