-- AlterTable
ALTER TABLE "User" ADD COLUMN "role" TEXT NOT NULL DEFAULT 'user';
ALTER TABLE "User" ADD COLUMN "displayName" TEXT NOT NULL DEFAULT '';

-- Existing users: the first one becomes the admin, display names default to the email's local part.
UPDATE "User" SET "role" = 'admin' WHERE "id" = (SELECT MIN("id") FROM "User");
UPDATE "User" SET "displayName" = substr("email", 1, instr("email", '@') - 1) WHERE instr("email", '@') > 1;

-- Public reads show a build's creator by display name, no longer by email.
UPDATE "Build" SET "createdBy" = COALESCE(
    (SELECT "displayName" FROM "User" WHERE "User"."id" = "Build"."createdById" AND "displayName" <> ''),
    CASE WHEN instr("createdBy", '@') > 1 THEN substr("createdBy", 1, instr("createdBy", '@') - 1) ELSE "createdBy" END
);

-- DropTable: failures were counted per email only; LoginAttempt counts per email and client address.
DROP TABLE "LoginFailure";

-- CreateTable
CREATE TABLE "LoginAttempt" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "email" TEXT NOT NULL,
    "address" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "RevokedSession" (
    "sid" TEXT NOT NULL PRIMARY KEY,
    "expiresAt" DATETIME NOT NULL
);

-- CreateIndex
CREATE INDEX "LoginAttempt_email_address_createdAt_idx" ON "LoginAttempt"("email", "address", "createdAt");

-- CreateIndex
CREATE INDEX "RevokedSession_expiresAt_idx" ON "RevokedSession"("expiresAt");
