-- AlterTable
ALTER TABLE "AutoBranchHead" ADD COLUMN "sourceBranch" TEXT;

