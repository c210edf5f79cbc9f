-- AlterTable
ALTER TABLE "JobLease" ADD COLUMN     "nextRunAt" TIMESTAMP(3);

