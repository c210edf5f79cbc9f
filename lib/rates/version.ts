import { readRatesVersion } from "../db/statements/rates-version";

/**
 * Tells whether the stored rates changed since the last call, whoever changed them: triggers on CurrencyRate
 * move the one row of RatesVersion on every insert, update and delete (SQLite's migration
 * 20261123150000_rates_version, PostgreSQL's baseline), whichever connection, process or instance writes (the
 * app's Prisma client, the import command, a test seeding the database, another instance on one PostgreSQL).
 * Writes to other tables (a build's stages, a sign-in) leave it alone, so they no longer empty the rate
 * reads' cache as SQLite's `PRAGMA data_version` did. Cheap enough to ask on every request served from a
 * cache (lib/db/statements/rates-version.ts).
 */
export function ratesVersion(): number | Promise<number> {
  return readRatesVersion();
}
