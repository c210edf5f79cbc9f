-- AlterTable
ALTER TABLE "Instance" ADD COLUMN     "previewAddress" TEXT;

