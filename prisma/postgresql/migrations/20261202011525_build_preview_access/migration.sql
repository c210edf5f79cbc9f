-- AlterTable
ALTER TABLE "Build" ADD COLUMN     "previewAccess" TEXT;

-- AlterTable
ALTER TABLE "PreviewShare" ADD COLUMN     "alias" TEXT,
ADD COLUMN     "ref" TEXT,
ADD COLUMN     "scope" TEXT NOT NULL DEFAULT 'build';

-- CreateTable
CREATE TABLE "BranchPreviewAccess" (
    "id" SERIAL NOT NULL,
    "alias" TEXT NOT NULL,
    "ref" TEXT NOT NULL,
    "access" TEXT NOT NULL,
    "chosenAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "BranchPreviewAccess_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "BranchPreviewAccess_alias_ref_key" ON "BranchPreviewAccess"("alias", "ref");

