-- AlterTable
ALTER TABLE "Build" ADD COLUMN "installCache" BOOLEAN NOT NULL DEFAULT true;

-- AlterTable
ALTER TABLE "BuildStage" ADD COLUMN "cached" BOOLEAN NOT NULL DEFAULT false;
