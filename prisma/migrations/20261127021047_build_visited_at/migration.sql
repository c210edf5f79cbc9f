-- AlterTable
ALTER TABLE "Build" ADD COLUMN "visitedAt" DATETIME;

