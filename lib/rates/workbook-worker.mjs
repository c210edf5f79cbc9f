// The heavy half of reading a workbook (lib/rates/workbook.ts), on a worker thread: SheetJS decodes the file
// here, off the server's event loop, and only the cells the reader needs go back to it.
//
// Plain JavaScript on purpose: the production server runs the compiled app, which has no TypeScript loader,
// and this file is started by its path (lib/rates/workbook.ts), so it must run as it is in the repository.
import { parentPort, workerData } from "node:worker_threads";
import * as XLSX from "@e965/xlsx";

const OLE2_SIGNATURE = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);

/** What the main thread shows as a WorkbookError: a file this service cannot read, for a person. */
class Refusal extends Error {}

/**
 * The bytes as sheets of rows: `{ name, rows }`, or `{ name, reason }` for a sheet not read. Rows keep their
 * first `maxColumns` cells (the bank's sheets have 8); only rows that may matter are sent back (the first 20,
 * for the headers, and those that name a currency or a date), so a hostile file cannot make the main thread
 * copy millions of cells.
 */
function readCells(buffer, limits) {
  if (buffer.byteLength < 512 || !buffer.subarray(0, 8).equals(OLE2_SIGNATURE)) {
    throw new Refusal("is not an Excel 97-2003 workbook (.xls): it does not start with the OLE2 signature");
  }
  let container;
  try {
    container = XLSX.CFB.read(buffer, { type: "buffer" });
  } catch (error) {
    throw new Refusal(`is damaged or truncated: ${shortMessage(error)}`);
  }
  // BIFF8 keeps its records in a stream named "Workbook"; BIFF5 and older in "Book", other OLE2 files
  // (Word, MSI) in neither.
  const stream = XLSX.CFB.find(container, "Workbook");
  if (!stream?.content || stream.content.length === 0) {
    throw new Refusal("is an OLE2 file without a BIFF8 Workbook stream: not an Excel 97-2003 workbook");
  }
  // Formulas are never evaluated or even kept: only the values the file stores are read.
  const readOptions = {
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
    sheetRows: limits.maxRowsPerSheet,
    WTF: false,
  };
  let workbook;
  try {
    const names = XLSX.read(buffer, { ...readOptions, bookSheets: true }).SheetNames;
    if (names.length > limits.maxSheets) {
      throw new Refusal(`has ${names.length} sheets; at most ${limits.maxSheets} are read (a quarter has about 65)`);
    }
    workbook = XLSX.read(buffer, readOptions);
  } catch (error) {
    if (error instanceof Refusal) throw error;
    throw new Refusal(`is damaged or truncated: ${shortMessage(error)}`);
  }
  return workbook.SheetNames.map((name) => {
    const sheet = workbook.Sheets[name];
    if (!sheet) return { name, reason: "is empty" };
    const rows = XLSX.utils.sheet_to_json(sheet, { header: 1, raw: true, blankrows: false, defval: null });
    let cells = 0;
    for (const row of rows) cells += row.length;
    if (cells > limits.maxCellsPerSheet) {
      return {
        name,
        reason: `has ${cells} cells in its first ${limits.maxRowsPerSheet} rows; at most ${limits.maxCellsPerSheet} are read`,
      };
    }
    const kept = rows
      .filter(
        (row, index) =>
          index < 20 || row.some((cell) => typeof cell === "string" && /^\s*[A-Z]{3}\s*$|Fecha/i.test(cell)),
      )
      .map((row) => row.slice(0, limits.maxColumns));
    return { name, rows: kept };
  });
}

function shortMessage(error) {
  const message = error instanceof Error ? error.message : String(error);
  return message.length > 200 ? `${message.slice(0, 200)}...` : message;
}

try {
  const { bytes, limits } = workerData;
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  parentPort.postMessage({ sheets: readCells(buffer, limits) });
} catch (error) {
  parentPort.postMessage(
    error instanceof Refusal
      ? { refused: error.message }
      : { failed: error instanceof Error ? error.message : String(error) },
  );
}
