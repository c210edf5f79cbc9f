-- A counter that every change to the stored rates moves, whichever connection or process makes it (the
-- server, the import command, a script): the rate reads' cache (lib/rates/read-cache.ts) compares it on every
-- read, so that writes to other tables (a build's stages, a sign-in) no longer empty that cache.
CREATE TABLE "RatesVersion" (
    "id" INTEGER NOT NULL PRIMARY KEY CHECK ("id" = 1),
    "version" INTEGER NOT NULL DEFAULT 0
);
INSERT INTO "RatesVersion" ("id", "version") VALUES (1, 0);

CREATE TRIGGER "CurrencyRate_inserted" AFTER INSERT ON "CurrencyRate"
BEGIN UPDATE "RatesVersion" SET "version" = "version" + 1 WHERE "id" = 1; END;
CREATE TRIGGER "CurrencyRate_updated" AFTER UPDATE ON "CurrencyRate"
BEGIN UPDATE "RatesVersion" SET "version" = "version" + 1 WHERE "id" = 1; END;
CREATE TRIGGER "CurrencyRate_deleted" AFTER DELETE ON "CurrencyRate"
BEGIN UPDATE "RatesVersion" SET "version" = "version" + 1 WHERE "id" = 1; END;
