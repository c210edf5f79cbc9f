-- CreateTable
CREATE TABLE "User" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "email" TEXT NOT NULL,
    "passwordHash" TEXT NOT NULL,
    "isActive" BOOLEAN NOT NULL DEFAULT true,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "LoginFailure" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "email" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "Rate" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "date" TEXT NOT NULL,
    "dollar" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "Build" (
    "seq" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "id" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "modules" TEXT NOT NULL,
    "ttlSeconds" INTEGER NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "startedAt" DATETIME,
    "finishedAt" DATETIME,
    "expiresAt" DATETIME NOT NULL,
    "failureStage" TEXT,
    "failureMessage" TEXT,
    "createdById" INTEGER NOT NULL,
    "createdBy" TEXT NOT NULL,
    "port" INTEGER,
    "runtimePgid" INTEGER
);

-- CreateTable
CREATE TABLE "BuildRepository" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "buildId" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "alias" TEXT NOT NULL,
    "ref" TEXT NOT NULL,
    "commitSha" TEXT NOT NULL,
    CONSTRAINT "BuildRepository_buildId_fkey" FOREIGN KEY ("buildId") REFERENCES "Build" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "BuildStage" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "buildId" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "startedAt" DATETIME,
    "finishedAt" DATETIME,
    "exitCode" INTEGER,
    "pgid" INTEGER,
    "logFile" TEXT,
    CONSTRAINT "BuildStage_buildId_fkey" FOREIGN KEY ("buildId") REFERENCES "Build" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE UNIQUE INDEX "User_email_key" ON "User"("email");

-- CreateIndex
CREATE INDEX "LoginFailure_email_createdAt_idx" ON "LoginFailure"("email", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "Rate_date_key" ON "Rate"("date");

-- CreateIndex
CREATE UNIQUE INDEX "Build_id_key" ON "Build"("id");

-- CreateIndex
CREATE INDEX "Build_status_seq_idx" ON "Build"("status", "seq");

-- CreateIndex
CREATE UNIQUE INDEX "BuildRepository_buildId_alias_key" ON "BuildRepository"("buildId", "alias");

-- CreateIndex
CREATE UNIQUE INDEX "BuildStage_buildId_name_key" ON "BuildStage"("buildId", "name");

