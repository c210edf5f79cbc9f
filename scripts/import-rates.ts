/**
 * `npm run rates:import -- [--overwrite] FILE...`: imports the central bank's quarterly workbooks into the
 * configured database (DATABASE_URL), one transaction per file, and prints per file what it read and changed.
 * Values the home page stored are kept unless --overwrite is given, as for POST /rates/import; the values
 * stored record no importing user (the operator ran it on the server). Exits 1 when any file could not be
 * imported (the others still are); a file that fails leaves the database as it was.
 */
import fs from "node:fs";
import path from "node:path";
import { getDb } from "../lib/db";
import { importWorkbook } from "../lib/rates/import";
import type { ImportSummary } from "../lib/rates/schemas";
import { MAX_WORKBOOK_BYTES, WorkbookError } from "../lib/rates/workbook";
import { getEnv, InvalidEnvironmentError } from "../lib/server/env";

function printSummary(summary: ImportSummary): void {
  console.log(
    `${summary.file}: ${summary.sheets_read} sheets read, value dates ${summary.first_date} .. ${summary.last_date}`,
  );
  console.log(
    `  dates added ${summary.dates_added}, changed ${summary.dates_changed}, unchanged ${summary.dates_unchanged}`,
  );
  console.log(`  currencies: ${summary.currencies.join(" ")}`);
  for (const skipped of summary.sheets_skipped) console.log(`  sheet ${skipped.sheet} skipped: ${skipped.reason}`);
  for (const skipped of summary.rows_skipped) console.log(`  sheet ${skipped.sheet}, row skipped: ${skipped.reason}`);
  for (const kept of summary.home_page_kept) {
    console.log(
      `  ${kept.date} ${kept.currency}: kept the home page's ${kept.home_page}, not the workbook's ${kept.workbook} (--overwrite replaces it)`,
    );
  }
  for (const won of summary.workbook_won) {
    console.log(
      `  ${won.date} ${won.currency}: the workbook's ${won.workbook} replaced the home page's ${won.home_page}`,
    );
  }
}

async function importFile(file: string, overwrite: boolean): Promise<boolean> {
  const name = path.basename(file);
  let bytes: Buffer;
  try {
    const size = fs.statSync(file).size;
    if (size > MAX_WORKBOOK_BYTES) {
      console.error(`${name}: not imported: is ${size} bytes; at most ${MAX_WORKBOOK_BYTES} are read`);
      return false;
    }
    bytes = fs.readFileSync(file);
  } catch (error) {
    console.error(`${name}: not imported: cannot read ${file}: ${(error as Error).message}`);
    return false;
  }
  try {
    printSummary(await importWorkbook(bytes, name, { overwrite, importedById: null }));
    return true;
  } catch (error) {
    if (!(error instanceof WorkbookError)) throw error;
    console.error(`${name}: not imported, nothing stored: the file ${error.message}`);
    return false;
  }
}

async function main(): Promise<number> {
  const args = process.argv.slice(2).filter((arg) => arg !== "--");
  const overwrite = args.includes("--overwrite");
  const files = args.filter((arg) => arg !== "--overwrite");
  if (files.length === 0) {
    console.error("usage: npm run rates:import -- [--overwrite] FILE.xls [FILE.xls ...]");
    return 2;
  }
  getEnv();
  let failed = 0;
  for (const file of files) if (!(await importFile(file, overwrite))) failed++;
  await getDb().$disconnect();
  if (failed > 0) console.error(`${failed} of ${files.length} files not imported`);
  return failed > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(
      error instanceof InvalidEnvironmentError ? error.message : `rates:import failed: ${(error as Error).message}`,
    );
    process.exit(1);
  },
);
