-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Instance" (
    "name" TEXT NOT NULL PRIMARY KEY,
    "url" TEXT,
    "startedAt" DATETIME NOT NULL,
    "heartbeatAt" DATETIME NOT NULL,
    "builderSlots" INTEGER NOT NULL,
    "buildsSettings" TEXT NOT NULL,
    "buildsFingerprint" TEXT NOT NULL,
    "processId" TEXT NOT NULL DEFAULT '',
    "machine" TEXT NOT NULL DEFAULT '',
    "pid" INTEGER NOT NULL DEFAULT 0
);
INSERT INTO "new_Instance" ("builderSlots", "buildsFingerprint", "buildsSettings", "heartbeatAt", "name", "startedAt", "url") SELECT "builderSlots", "buildsFingerprint", "buildsSettings", "heartbeatAt", "name", "startedAt", "url" FROM "Instance";
DROP TABLE "Instance";
ALTER TABLE "new_Instance" RENAME TO "Instance";
CREATE INDEX "Instance_heartbeatAt_idx" ON "Instance"("heartbeatAt");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

