-- The baseline of PostgreSQL's history: the state that SQLite's migrations 20261122190000_init to
-- 20261123150000_rates_version reach, in one step (PostgreSQL support started there). Every later change to
-- prisma/schema.prisma gets a migration here too (prisma/postgresql/README.md).
-- CreateTable
CREATE TABLE "User" (
    "id" SERIAL NOT NULL,
    "email" TEXT NOT NULL,
    "passwordHash" TEXT NOT NULL,
    "isActive" BOOLEAN NOT NULL DEFAULT true,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "role" TEXT NOT NULL DEFAULT 'user',
    "displayName" TEXT NOT NULL DEFAULT '',

    CONSTRAINT "User_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "LoginAttempt" (
    "id" SERIAL NOT NULL,
    "email" TEXT NOT NULL,
    "address" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "LoginAttempt_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "RevokedSession" (
    "sid" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "RevokedSession_pkey" PRIMARY KEY ("sid")
);

-- CreateTable
CREATE TABLE "CurrencyRate" (
    "id" SERIAL NOT NULL,
    "date" TEXT NOT NULL,
    "currency" TEXT NOT NULL,
    "rate" TEXT NOT NULL,
    "bid" TEXT,
    "source" TEXT NOT NULL,
    "sourceDetail" TEXT,
    "fetchedAt" TIMESTAMP(3) NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "CurrencyRate_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "RatesVersion" (
    "id" INTEGER NOT NULL,
    "version" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "RatesVersion_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Build" (
    "seq" SERIAL NOT NULL,
    "id" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "modules" TEXT NOT NULL,
    "ttlSeconds" INTEGER NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "startedAt" TIMESTAMP(3),
    "finishedAt" TIMESTAMP(3),
    "expiresAt" TIMESTAMP(3),
    "endedAt" TIMESTAMP(3),
    "failureStage" TEXT,
    "failureMessage" TEXT,
    "createdById" INTEGER,
    "createdBy" TEXT NOT NULL,
    "trigger" TEXT NOT NULL DEFAULT 'manual',
    "triggeredBy" TEXT,
    "driver" TEXT NOT NULL DEFAULT 'process',
    "port" INTEGER,
    "runtimeHandle" TEXT,

    CONSTRAINT "Build_pkey" PRIMARY KEY ("seq")
);

-- CreateTable
CREATE TABLE "BuildRepository" (
    "id" SERIAL NOT NULL,
    "buildId" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "alias" TEXT NOT NULL,
    "ref" TEXT NOT NULL,
    "commitSha" TEXT NOT NULL,
    "commitSubject" TEXT,
    "commitAuthor" TEXT,

    CONSTRAINT "BuildRepository_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AutoBranchHead" (
    "id" SERIAL NOT NULL,
    "alias" TEXT NOT NULL,
    "branch" TEXT NOT NULL,
    "commitSha" TEXT NOT NULL,
    "pending" BOOLEAN NOT NULL DEFAULT false,
    "trigger" TEXT NOT NULL,
    "triggeredBy" TEXT,
    "noticedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "AutoBranchHead_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "BuildStage" (
    "id" SERIAL NOT NULL,
    "buildId" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "startedAt" TIMESTAMP(3),
    "finishedAt" TIMESTAMP(3),
    "exitCode" INTEGER,
    "handle" TEXT,
    "logFile" TEXT,

    CONSTRAINT "BuildStage_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "User_email_key" ON "User"("email");

-- CreateIndex
CREATE INDEX "LoginAttempt_email_address_createdAt_idx" ON "LoginAttempt"("email", "address", "createdAt");

-- CreateIndex
CREATE INDEX "RevokedSession_expiresAt_idx" ON "RevokedSession"("expiresAt");

-- CreateIndex
CREATE INDEX "CurrencyRate_currency_date_idx" ON "CurrencyRate"("currency", "date");

-- CreateIndex
CREATE UNIQUE INDEX "CurrencyRate_date_currency_key" ON "CurrencyRate"("date", "currency");

-- CreateIndex
CREATE UNIQUE INDEX "Build_id_key" ON "Build"("id");

-- CreateIndex
CREATE INDEX "Build_status_seq_idx" ON "Build"("status", "seq");

-- CreateIndex
CREATE INDEX "BuildRepository_alias_commitSha_idx" ON "BuildRepository"("alias", "commitSha");

-- CreateIndex
CREATE UNIQUE INDEX "BuildRepository_buildId_alias_key" ON "BuildRepository"("buildId", "alias");

-- CreateIndex
CREATE INDEX "AutoBranchHead_pending_noticedAt_idx" ON "AutoBranchHead"("pending", "noticedAt");

-- CreateIndex
CREATE UNIQUE INDEX "AutoBranchHead_alias_branch_key" ON "AutoBranchHead"("alias", "branch");

-- CreateIndex
CREATE UNIQUE INDEX "BuildStage_buildId_name_key" ON "BuildStage"("buildId", "name");

-- AddForeignKey
ALTER TABLE "BuildRepository" ADD CONSTRAINT "BuildRepository_buildId_fkey" FOREIGN KEY ("buildId") REFERENCES "Build"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "BuildStage" ADD CONSTRAINT "BuildStage_buildId_fkey" FOREIGN KEY ("buildId") REFERENCES "Build"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- A counter that every change to the stored rates moves, whichever connection, process or instance makes it:
-- the rate reads' cache (lib/rates/read-cache.ts) compares it on every read. SQLite's migration
-- 20261123150000_rates_version does the same with row triggers; here one trigger per statement is enough.
ALTER TABLE "RatesVersion" ADD CONSTRAINT "RatesVersion_single_row" CHECK ("id" = 1);
INSERT INTO "RatesVersion" ("id", "version") VALUES (1, 0);

CREATE FUNCTION "bump_rates_version"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "RatesVersion" SET "version" = "version" + 1 WHERE "id" = 1;
  RETURN NULL;
END;
$$;
CREATE TRIGGER "CurrencyRate_changed" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "CurrencyRate"
FOR EACH STATEMENT EXECUTE FUNCTION "bump_rates_version"();
