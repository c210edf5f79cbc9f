import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import * as XLSX from "@e965/xlsx";
import { type AppServer, commandEnvironment } from "./app-server";

/** The central bank's own quarterly workbooks of 2025 (first, second and fourth quarters). */
export const WORKBOOKS_DIR = path.resolve(import.meta.dirname, "..", "fixtures", "bcv-workbooks");
export const Q1_2025 = path.join(WORKBOOKS_DIR, "2_1_2a25_smc.xls");
export const Q2_2025 = path.join(WORKBOOKS_DIR, "2_1_2b25_smc.xls");
export const Q4_2025 = path.join(WORKBOOKS_DIR, "2_1_2d25_smc.xls");

export const readWorkbook = (file: string) => new Uint8Array(fs.readFileSync(file));

export interface SheetSpec {
  name: string;
  /** dd/mm/yyyy, as the bank writes it. */
  fechaValor: string;
  fechaOperacion?: string;
  /** [code, bid, ask] in bolivares per unit. */
  rows: [string, number, number][];
}

/**
 * An Excel 97 (BIFF8) workbook laid out like the bank's: header cells, then one row per currency with the
 * bolivar bid and ask under "Bs./M.E.". For cases the real files do not have (dates near today, hostile
 * content); written by SheetJS, as the bank's are read by it.
 */
export function makeWorkbook(sheets: SheetSpec[]): Uint8Array {
  const book = XLSX.utils.book_new();
  for (const sheet of sheets) {
    const rows: unknown[][] = [
      ["BANCO CENTRAL DE VENEZUELA"],
      [null, null, null, "TIPO DE CAMBIO DE REFERENCIA (*)"],
      [`Fecha Operacion: ${sheet.fechaOperacion ?? sheet.fechaValor}`, null, `Fecha Valor: ${sheet.fechaValor}`],
      [null, null, "(a) Cotización M.E./US$", null, "Bs./M.E."],
      [null, "Moneda/País", "Compra (BID)", "Venta (ASK)", "Compra (BID)", "Venta (ASK)"],
      ...sheet.rows.map(([code, bid, ask]) => [code, "País", 1, 1, bid, ask]),
    ];
    XLSX.utils.book_append_sheet(book, XLSX.utils.aoa_to_sheet(rows), sheet.name);
  }
  return new Uint8Array(XLSX.write(book, { type: "buffer", bookType: "biff8" }) as Buffer);
}

/** A YYYY-MM-DD date as the bank writes it: dd/mm/yyyy. */
export const bankDate = (date: string) => date.split("-").reverse().join("/");

/**
 * A workbook just under the upload limit (about 4.5 MB: 100 sheets of 125 rows of 12 distinct texts) that
 * costs SheetJS a second or more of CPU to decode, and holds no rates (the import refuses it with 400): the
 * kind of file that would stall the server's event loop if it were read there.
 */
export function makeLargeWorkbook(): Uint8Array {
  const book = XLSX.utils.book_new();
  for (let sheet = 0; sheet < 100; sheet++) {
    const rows: unknown[][] = [["Fecha Valor: 14/10/2025"]];
    for (let row = 0; row < 125; row++)
      rows.push(Array.from({ length: 12 }, (_, column) => `t${row}-${column}-${sheet}`));
    XLSX.utils.book_append_sheet(book, XLSX.utils.aoa_to_sheet(rows), `S${sheet}`);
  }
  return new Uint8Array(XLSX.write(book, { type: "buffer", bookType: "biff8" }) as Buffer);
}

/**
 * Imports workbooks into a test server's database with `npm run rates:import` (the operator's command), as
 * the bank's record for tests that read rates. Throws with the command's output when it fails.
 */
export function importWithCommand(app: AppServer, ...files: string[]): void {
  const projectRoot = path.resolve(import.meta.dirname, "..", "..");
  const result = spawnSync(
    path.join(projectRoot, "node_modules", ".bin", "tsx"),
    ["scripts/import-rates.ts", ...files],
    {
      cwd: projectRoot,
      env: { ...process.env, ...commandEnvironment(app) },
      encoding: "utf8",
      timeout: 120_000,
    },
  );
  if (result.status !== 0)
    throw new Error(`rates:import failed (${result.status}):\n${result.stdout}\n${result.stderr}`);
}
