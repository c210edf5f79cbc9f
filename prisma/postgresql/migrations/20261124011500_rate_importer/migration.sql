-- Who imported each rate (issue 20): the admin's user id, null for the home page and the operator's command.
ALTER TABLE "CurrencyRate" ADD COLUMN "importedById" INTEGER;
