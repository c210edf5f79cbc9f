-- AlterTable
ALTER TABLE "Build" ADD COLUMN     "visitedAt" TIMESTAMP(3);

