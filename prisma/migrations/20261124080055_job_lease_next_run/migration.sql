-- AlterTable
ALTER TABLE "JobLease" ADD COLUMN "nextRunAt" DATETIME;

