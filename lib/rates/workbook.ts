import path from "node:path";
import { Worker } from "node:worker_threads";
import PQueue from "p-queue";
import { parseCommaDecimal } from "./bcv-client";
import { isoCodeOf } from "./currencies";
import { decimalTextOfNumber, implausibleRateReason, implausibleWorkbookDate } from "./plausibility";

/**
 * Reads the central bank's quarterly reference-rate workbooks (`2_1_2<quarter><yy>_smc.xls`): Excel 97
 * (BIFF8) files with one sheet per business day. In each sheet: `Fecha Operacion: dd/mm/yyyy` and
 * `Fecha Valor: dd/mm/yyyy` header cells, then one row per currency: code, country, bid and ask in currency
 * per dollar, bid and ask in bolivares per unit (`Bs./M.E.`). The value date is the Fecha Valor.
 *
 * Every file is hostile until read: its size, sheets and rows are bounded, it must be an OLE2 compound file
 * holding a BIFF8 `Workbook` stream (not text, HTML or a zip that SheetJS would also accept), and formulas
 * are never evaluated or even kept (cellFormula: false): only the values the file stores are read.
 *
 * SheetJS decodes the file on a worker thread (lib/rates/workbook-worker.mjs), never on the server's event
 * loop: a large file costs seconds of CPU, during which every other request would wait. At most
 * MAX_PARALLEL_READS files are decoded at once, a few more wait their turn (503 past that), and a decode that
 * takes longer than `timeoutMs` (WORKBOOK_READ_TIMEOUT_MS) or needs more memory than the worker is given is
 * stopped and the file refused. What comes back (the cells that matter) is read here.
 */

/** Past this, an upload is refused unread (413): a quarter's workbook is under 300 KB. */
export const MAX_WORKBOOK_BYTES = 5 * 1024 * 1024;
/** Columns read per row: the bank's sheets have 8. */
export const MAX_COLUMNS = 32;
/** Files decoded at once, each on its own thread: the machines this runs on have two cores or more. */
export const MAX_PARALLEL_READS = 2;
/**
 * Files waiting for a thread when the caller names no other number (the app passes WORKBOOK_MAX_WAITING_READS, whose
 * default this is); past them an upload is refused with 503 until one is done.
 */
export const MAX_WAITING_READS = 8;
/** The memory a decode may use; its time is bounded by WORKBOOK_READ_TIMEOUT_MS (lib/server/env.ts). */
const WORKER_MEMORY_MB = 256;
/** A quarter has at most 66 business days. */
export const MAX_SHEETS = 100;
/** Rows read per sheet: the bank's sheets have about 40; the rest of a longer sheet is not read. */
export const MAX_ROWS_PER_SHEET = 200;
/** Cells a sheet may hold in its bounded rows: stops a sheet that declares millions of columns. */
const MAX_CELLS_PER_SHEET = 20_000;

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

/** A file the decoder may not take on now: too many are being read (503 with Retry-After). */
export class WorkbookBusyError extends Error {}

/** The `{ name, rows }` of each sheet the worker decoded, or `{ name, reason }` for one it did not. */
type DecodedSheet = { name: string; rows: unknown[][] } | { name: string; reason: string };

const decodeQueue = new PQueue({ concurrency: MAX_PARALLEL_READS });

/**
 * Reads a workbook's bytes. Throws WorkbookError when the file as a whole cannot be read (not a workbook,
 * truncated, too large, too many sheets, too slow to decode, no sheet with rates), WorkbookBusyError when too
 * many files wait for a thread; a sheet that cannot be read is skipped with the reason. `today` (YYYY-MM-DD
 * in RATES_TIMEZONE) bounds the value dates accepted.
 */
export async function parseWorkbook(
  bytes: Uint8Array,
  today: string,
  timeoutMs = 20_000,
  maxWaiting = MAX_WAITING_READS,
): Promise<ParsedWorkbook> {
  if (bytes.byteLength > MAX_WORKBOOK_BYTES) {
    throw new WorkbookError(`is ${bytes.byteLength} bytes; at most ${MAX_WORKBOOK_BYTES} are read`);
  }
  if (decodeQueue.size >= maxWaiting) {
    throw new WorkbookBusyError(
      `${decodeQueue.pending + decodeQueue.size} workbooks are being read; try again in a moment`,
    );
  }
  const decoded = await decodeQueue.add(() => decodeOnWorker(bytes, timeoutMs));
  return readDecodedSheets(decoded, today);
}

/** The worker's file, by path: it runs as it is in the repository (see its header), from the app's folder. */
const WORKER_FILE = path.join(process.cwd(), "lib", "rates", "workbook-worker.mjs");

function decodeOnWorker(bytes: Uint8Array, timeoutMs: number): Promise<DecodedSheet[]> {
  return new Promise((resolve, reject) => {
    // A copy the worker owns: the caller's bytes stay usable, and nothing is shared between threads.
    const copy = new Uint8Array(bytes);
    const worker = new Worker(WORKER_FILE, {
      workerData: {
        bytes: copy,
        limits: {
          maxSheets: MAX_SHEETS,
          maxRowsPerSheet: MAX_ROWS_PER_SHEET,
          maxCellsPerSheet: MAX_CELLS_PER_SHEET,
          maxColumns: MAX_COLUMNS,
        },
      },
      transferList: [copy.buffer],
      resourceLimits: { maxOldGenerationSizeMb: WORKER_MEMORY_MB, maxYoungGenerationSizeMb: 32 },
      stdout: false,
      stderr: false,
    });
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void worker.terminate();
      outcome();
    };
    const timer = setTimeout(
      () => settle(() => reject(new WorkbookError(`took more than ${timeoutMs} ms to read; it was stopped`))),
      timeoutMs,
    );
    worker.once("message", (message: { sheets?: DecodedSheet[]; refused?: string; failed?: string }) => {
      if (message.sheets) settle(() => resolve(message.sheets!));
      else if (message.refused !== undefined) settle(() => reject(new WorkbookError(message.refused!)));
      else settle(() => reject(new WorkbookError(`is damaged or truncated: ${message.failed}`)));
    });
    worker.once("error", (error: Error & { code?: string }) => {
      settle(() =>
        reject(
          error.code === "ERR_WORKER_OUT_OF_MEMORY"
            ? new WorkbookError(`needs more than ${WORKER_MEMORY_MB} MB to read; it was stopped`)
            : error,
        ),
      );
    });
    worker.once("exit", (code) =>
      settle(() => reject(new Error(`The workbook reader stopped (exit code ${code}) before it answered`))),
    );
  });
}

/** The sheets of a decoded workbook: each sheet's rates under its Fecha Valor, or why it was skipped. */
function readDecodedSheets(decoded: DecodedSheet[], today: string): ParsedWorkbook {
  const sheets: WorkbookSheet[] = [];
  const skipped: SkippedSheet[] = [];
  const sheetOfDate = new Map<string, string>();
  for (const sheet of decoded) {
    const name = sheet.name;
    const result = "reason" in sheet ? sheet : readSheet(sheet.rows, today);
    if ("reason" in result) {
      skipped.push({ sheet: name, reason: result.reason });
      continue;
    }
    const earlier = sheetOfDate.get(result.date);
    if (earlier !== undefined) {
      skipped.push({
        sheet: name,
        reason: `its Fecha Valor ${result.date} is also sheet ${earlier}'s, which was read`,
      });
      continue;
    }
    sheetOfDate.set(result.date, name);
    sheets.push({ name, ...result });
  }
  if (sheets.length === 0) {
    const why = skipped
      .slice(0, 3)
      .map((s) => `${s.sheet}: ${s.reason}`)
      .join("; ");
    throw new WorkbookError(`has no sheet with the central bank's reference rates${why ? ` (${why})` : ""}`);
  }
  return { sheets, skipped };
}

type SheetRead = Omit<WorkbookSheet, "name"> | { reason: string };

const FECHA_VALOR = /Fecha\s+Valor\s*:?\s*(\d{1,2})\/(\d{1,2})\/(\d{4})/i;
const FECHA_OPERACION = /Fecha\s+Operaci[oó]n\s*:?\s*(\d{1,2})\/(\d{1,2})\/(\d{4})/i;
const CURRENCY_CODE = /^[A-Z]{3}$/;

function readSheet(rows: unknown[][], today: string): SheetRead {
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
  else if (typeof cell === "string")
    text = parseCommaDecimal(cell) ?? (/^\d+(\.\d+)?$/.test(cell.trim()) ? cell.trim() : undefined);
  if (text === undefined)
    return {
      reason: `is ${cell === null || cell === undefined ? "empty" : JSON.stringify(String(cell).slice(0, 20))}, not a positive number`,
    };
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
