// Writes the history as an .xlsx workbook (lib/rates/export.ts), on a worker thread: SheetJS builds the whole
// file at once, which for ten years of every currency takes seconds the server's event loop must not lose.
//
// Plain JavaScript on purpose, like workbook-worker.mjs: the production server runs the compiled app, which
// has no TypeScript loader, and this file is started by its path.
import { parentPort, workerData } from "node:worker_threads";
import * as XLSX from "@e965/xlsx";

/**
 * `words` are the sheet's name and the date column's header in the reader's language ("tasas", "fecha");
 * `columns` is the header after the date (USD, then the asked codes, as in every language); each row is `[date, ...values]`, the date
 * YYYY-MM-DD and each value the stored decimal text, or "" where that currency has no rate that date. Dates
 * become date cells shown as YYYY-MM-DD, as in the CSV and unambiguous in every locale (Excel's short date
 * format would show 10/14/25 in English); values become numbers with up to 8 decimals, shown with the
 * reader's decimal mark.
 */
function writeWorkbook({ columns, rows, words }) {
  const sheet = XLSX.utils.aoa_to_sheet([[words.date, ...columns]]);
  XLSX.utils.sheet_add_aoa(
    sheet,
    rows.map(([date, ...values]) => [
      { t: "d", v: new Date(`${date}T00:00:00Z`), z: "yyyy-mm-dd" },
      ...values.map((value) => (value === "" ? null : { t: "n", v: Number(value), z: "0.00######" })),
    ]),
    { origin: "A2", cellDates: true },
  );
  sheet["!cols"] = [{ wch: 12 }, ...columns.map(() => ({ wch: 16 }))];
  const book = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(book, sheet, words.sheet);
  return XLSX.write(book, { type: "buffer", bookType: "xlsx", compression: true });
}

try {
  const bytes = writeWorkbook(workerData);
  const copy = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  parentPort.postMessage({ bytes: copy }, [copy]);
} catch (error) {
  parentPort.postMessage({ failed: error instanceof Error ? error.message : String(error) });
}
