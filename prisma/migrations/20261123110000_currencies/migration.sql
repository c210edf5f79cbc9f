-- Every currency the central bank publishes, one row per (value date, currency), with where and when it was
-- read. Replaces "Rate" (the dollar only): its rows move here as USD read from the home page, keeping their
-- ids, so the id POST /rates/ answers for a date stays the same.

-- CreateTable
CREATE TABLE "CurrencyRate" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "date" TEXT NOT NULL,
    "currency" TEXT NOT NULL,
    "rate" TEXT NOT NULL,
    "bid" TEXT,
    "source" TEXT NOT NULL,
    "sourceDetail" TEXT,
    "fetchedAt" DATETIME NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateIndex
CREATE INDEX "CurrencyRate_currency_date_idx" ON "CurrencyRate"("currency", "date");

-- CreateIndex
CREATE UNIQUE INDEX "CurrencyRate_date_currency_key" ON "CurrencyRate"("date", "currency");

-- Data: the stored dollar rates, each last read from the home page when it was last updated.
INSERT INTO "CurrencyRate" ("id", "date", "currency", "rate", "bid", "source", "sourceDetail", "fetchedAt", "createdAt", "updatedAt")
SELECT "id", "date", 'USD', "dollar", NULL, 'home-page', NULL, "updatedAt", "createdAt", "updatedAt" FROM "Rate";

-- DropTable
PRAGMA foreign_keys=off;
DROP TABLE "Rate";
PRAGMA foreign_keys=on;
