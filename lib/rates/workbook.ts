import * as XLSX from "@e965/xlsx";
import { isoCodeOf } from "./currencies";
import { decimalTextOfNumber, implausibleRateReason, implausibleWorkbookDate } from "./plausibility";
import { parseCommaDecimal } from "./bcv-client";

/**
 * Reads the central bank's quarterly reference-rate workbooks (`2_1_2<quarter><yy>_smc.xls`): Excel 97
 * (BIFF8) files with one sheet per business day. In each sheet: `Fecha Operacion: dd/mm/yyyy` and
 * `Fecha Valor: dd/mm/yyyy` header cells, then one row per currency: code, country, bid and ask in currency
 * per dollar, bid and ask in bolivares per unit (`Bs./M.E.`). The value date is the Fecha Valor.
 *
 * Every file is hostile until read: its size, sheets and rows are bounded, it must be an OLE2 compound file
 * holding a BIFF8 `Workbook` stream (not text, HTML or a zip that SheetJS would also accept), and formulas
 * are never evaluated or even kept (cellFormula: false): only the values the file stores are read.
 */

/** Past this, an upload is refused unread (413): a quarter's workbook is under 300 KB. */
export const MAX_WORKBOOK_BYTES = 5 * 1024 * 1024;
/** A quarter has at most 66 business days. */
export const MAX_SHEETS = 100;
/** Rows read per sheet: the bank's sheets have about 40; the rest of a longer sheet is not read. */
export const MAX_ROWS_PER_SHEET = 200;
/** Cells a sheet may hold in its bounded rows: stops a sheet that declares millions of columns. */
const MAX_CELLS_PER_SHEET = 20_000;

const OLE2_SIGNATURE = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);

/** A file that is not a workbook this service can read; the message says why, for a person. */
export class WorkbookError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "WorkbookError";
  }
}

export interface WorkbookRate {
  /** ISO 4217 (MXP is read as MXN). */
  currency: string;
  /** The ask in bolivares per unit, decimal text. */
  rate: string;
  /** The bid in bolivares per unit, decimal text, when the sheet has one. */
  bid: string | null;
}

export interface WorkbookSheet {
  name: string;
  /** Fecha Valor, YYYY-MM-DD: the date the rates apply to. */
  date: string;
  /** Fecha Operacion, YYYY-MM-DD, when the sheet gives it. */
  operationDate: string | null;
  rates: WorkbookRate[];
  /** Rows that looked like a currency but could not be used, and why. */
  skippedRows: string[];
}

export interface SkippedSheet {
  sheet: string;
  reason: string;
}

export interface ParsedWorkbook {
  sheets: WorkbookSheet[];
  skipped: SkippedSheet[];
}

/**
 * Reads a workbook's bytes. Throws WorkbookError when the file as a whole cannot be read (not a workbook,
 * truncated, too large, too many sheets, no sheet with rates); a sheet that cannot be read is skipped with the
 * reason. `today` (YYYY-MM-DD in RATES_TIMEZONE) bounds the value dates accepted.
 */
export function parseWorkbook(bytes: Uint8Array, today: string): ParsedWorkbook {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buffer.byteLength > MAX_WORKBOOK_BYTES) {
    throw new WorkbookError(`is ${buffer.byteLength} bytes; at most ${MAX_WORKBOOK_BYTES} are read`);
  }
  if (buffer.byteLength < 512 || !buffer.subarray(0, 8).equals(OLE2_SIGNATURE)) {
    throw new WorkbookError("is not an Excel 97-2003 workbook (.xls): it does not start with the OLE2 signature");
  }
  let container: ReturnType<typeof XLSX.CFB.read>;
  try {
    container = XLSX.CFB.read(buffer, { type: "buffer" });
  } catch (error) {
    throw new WorkbookError(`is damaged or truncated: ${shortMessage(error)}`);
  }
  // BIFF8 keeps its records in a stream named "Workbook"; BIFF5 and older in "Book", other OLE2 files
  // (Word, MSI) in neither.
  const stream = XLSX.CFB.find(container, "Workbook");
  if (!stream || !stream.content || stream.content.length === 0) {
    throw new WorkbookError("is an OLE2 file without a BIFF8 Workbook stream: not an Excel 97-2003 workbook");
  }

  const readOptions: XLSX.ParsingOptions = {
    type: "buffer",
    cellFormula: false,
    cellHTML: false,
    cellNF: false,
    cellStyles: false,
    cellText: false,
    cellDates: false,
    sheetStubs: false,
    bookVBA: false,
    bookFiles: false,
    bookDeps: false,
    dense: true,
    sheetRows: MAX_ROWS_PER_SHEET,
    WTF: false,
  };
  let workbook: XLSX.WorkBook;
  try {
    const names = XLSX.read(buffer, { ...readOptions, bookSheets: true }).SheetNames;
    if (names.length > MAX_SHEETS) {
      throw new WorkbookError(`has ${names.length} sheets; at most ${MAX_SHEETS} are read (a quarter has about 65)`);
    }
    workbook = XLSX.read(buffer, readOptions);
  } catch (error) {
    if (error instanceof WorkbookError) throw error;
    throw new WorkbookError(`is damaged or truncated: ${shortMessage(error)}`);
  }

  const sheets: WorkbookSheet[] = [];
  const skipped: SkippedSheet[] = [];
  const sheetOfDate = new Map<string, string>();
  for (const name of workbook.SheetNames) {
    const result = readSheet(workbook.Sheets[name], today);
    if ("reason" in result) {
      skipped.push({ sheet: name, reason: result.reason });
      continue;
    }
    const earlier = sheetOfDate.get(result.date);
    if (earlier !== undefined) {
      skipped.push({ sheet: name, reason: `its Fecha Valor ${result.date} is also sheet ${earlier}'s, which was read` });
      continue;
    }
    sheetOfDate.set(result.date, name);
    sheets.push({ name, ...result });
  }
  if (sheets.length === 0) {
    const why = skipped.slice(0, 3).map((s) => `${s.sheet}: ${s.reason}`).join("; ");
    throw new WorkbookError(`has no sheet with the central bank's reference rates${why ? ` (${why})` : ""}`);
  }
  return { sheets, skipped };
}

type SheetRead = Omit<WorkbookSheet, "name"> | { reason: string };

const FECHA_VALOR = /Fecha\s+Valor\s*:?\s*(\d{1,2})\/(\d{1,2})\/(\d{4})/i;
const FECHA_OPERACION = /Fecha\s+Operaci[oó]n\s*:?\s*(\d{1,2})\/(\d{1,2})\/(\d{4})/i;
const CURRENCY_CODE = /^[A-Z]{3}$/;

function readSheet(sheet: XLSX.WorkSheet | undefined, today: string): SheetRead {
  if (!sheet) return { reason: "is empty" };
  const rows = XLSX.utils.sheet_to_json<unknown[]>(sheet, { header: 1, raw: true, blankrows: false, defval: null });
  let cells = 0;
  for (const row of rows) cells += row.length;
  if (cells > MAX_CELLS_PER_SHEET) return { reason: `has ${cells} cells in its first ${MAX_ROWS_PER_SHEET} rows; at most ${MAX_CELLS_PER_SHEET} are read` };

  const texts = rows.flatMap((row) => row.filter((cell): cell is string => typeof cell === "string"));
  const valueText = texts.find((text) => FECHA_VALOR.test(text));
  if (valueText === undefined) return { reason: "has no Fecha Valor: dd/mm/yyyy cell" };
  const date = dateOf(FECHA_VALOR.exec(valueText)!);
  if (date === undefined) return { reason: `gives "${valueText.trim().slice(0, 40)}", which is not a calendar date` };
  const implausible = implausibleWorkbookDate(date, today);
  if (implausible) return { reason: `its Fecha Valor ${date} ${implausible}` };
  const operationText = texts.find((text) => FECHA_OPERACION.test(text));
  const operationDate = operationText === undefined ? null : (dateOf(FECHA_OPERACION.exec(operationText)!) ?? null);

  const { bidColumn, askColumn } = bolivarColumns(rows);
  const rates: WorkbookRate[] = [];
  const skippedRows: string[] = [];
  for (const row of rows) {
    const first = row[0];
    if (typeof first !== "string" || !CURRENCY_CODE.test(first.trim())) continue;
    const bankCode = first.trim();
    const currency = isoCodeOf(bankCode);
    if (currency === undefined) {
      skippedRows.push(`${bankCode}: not a currency this service keeps`);
      continue;
    }
    const ask = cellDecimal(row[askColumn]);
    if ("reason" in ask) {
      skippedRows.push(`${bankCode}: the ask in Bs./M.E. ${ask.reason}`);
      continue;
    }
    const bid = cellDecimal(row[bidColumn]);
    if (rates.some((rate) => rate.currency === currency)) {
      skippedRows.push(`${bankCode}: a second row for ${currency}`);
      continue;
    }
    rates.push({ currency, rate: ask.value, bid: "value" in bid ? bid.value : null });
  }
  if (!rates.some((rate) => rate.currency === "USD")) {
    return { reason: `has no readable USD row${skippedRows.length ? ` (${skippedRows.slice(0, 3).join("; ")})` : ""}` };
  }
  return { date, operationDate, rates, skippedRows };
}

/**
 * The columns of the bid and ask in bolivares: under the header cell "Bs./M.E.", bid first. The bank's sheets
 * have it in the fifth column of the read range; that is the fallback.
 */
function bolivarColumns(rows: unknown[][]): { bidColumn: number; askColumn: number } {
  for (const row of rows.slice(0, 20)) {
    const index = row.findIndex((cell) => typeof cell === "string" && /Bs\.?\s*\/\s*M\.?\s*E\.?/i.test(cell));
    if (index >= 0) return { bidColumn: index, askColumn: index + 1 };
  }
  return { bidColumn: 4, askColumn: 5 };
}

function cellDecimal(cell: unknown): { value: string } | { reason: string } {
  let text: string | undefined;
  if (typeof cell === "number") text = decimalTextOfNumber(cell);
  else if (typeof cell === "string") text = parseCommaDecimal(cell) ?? (/^\d+(\.\d+)?$/.test(cell.trim()) ? cell.trim() : undefined);
  if (text === undefined) return { reason: `is ${cell === null || cell === undefined ? "empty" : JSON.stringify(String(cell).slice(0, 20))}, not a positive number` };
  const implausible = implausibleRateReason(text);
  const shown = text.length > 24 ? `${text.slice(0, 20)}...` : text;
  return implausible ? { reason: `${shown} ${implausible}` } : { value: text };
}

function dateOf(match: RegExpExecArray): string | undefined {
  const [, day, month, year] = match;
  const iso = `${year}-${month.padStart(2, "0")}-${day.padStart(2, "0")}`;
  const moment = new Date(`${iso}T00:00:00Z`);
  return Number.isNaN(moment.getTime()) || moment.toISOString().slice(0, 10) !== iso ? undefined : iso;
}

function shortMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.length > 200 ? `${message.slice(0, 200)}...` : message;
}
