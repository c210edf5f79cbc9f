import Decimal from "decimal.js";
import { getEnv } from "../env";
import { todayIn } from "./dates";
import {
  inRatesTransaction,
  insertWorkbookValues,
  listStoredValuesOn,
  updateWithWorkbookValue,
  type StoredValue,
  type WorkbookValue,
} from "./repository";
import { invalidateRateReads } from "./read-cache";
import type { ImportSummary } from "./schemas";
import { MAX_WORKBOOK_BYTES, parseWorkbook, WorkbookError } from "./workbook";
import { payloadTooLarge, unprocessable } from "../http/problem";
import { readBody } from "../http/request";

/**
 * Imports one of the central bank's workbooks: every readable sheet's rates under its Fecha Valor, in one
 * transaction (the file is stored whole or not at all). Per value date the summary says whether it was
 * added, changed or unchanged; importing the same file again changes nothing. Where the home page had
 * stored a different value for a date, the workbook (the bank's own record) wins, and the summary lists it.
 * Throws WorkbookError when the file cannot be read; nothing is stored then.
 */
export async function importWorkbook(bytes: Uint8Array, fileName: string): Promise<ImportSummary> {
  const parsed = parseWorkbook(bytes, todayIn(getEnv().RATES_TIMEZONE));
  const fetchedAt = new Date();
  const summary: ImportSummary = {
    file: fileName,
    sheets_read: parsed.sheets.length,
    dates_added: 0,
    dates_changed: 0,
    dates_unchanged: 0,
    first_date: parsed.sheets.map((sheet) => sheet.date).sort()[0],
    last_date: parsed.sheets.map((sheet) => sheet.date).sort().at(-1)!,
    currencies: [...new Set(parsed.sheets.flatMap((sheet) => sheet.rates.map((rate) => rate.currency)))].sort(),
    sheets_skipped: parsed.skipped,
    rows_skipped: parsed.sheets.flatMap((sheet) => sheet.skippedRows.map((reason) => ({ sheet: sheet.name, reason }))),
    workbook_won: [],
  };

  await inRatesTransaction(async (tx) => {
    const stored = await listStoredValuesOn(tx, parsed.sheets.map((sheet) => sheet.date));
    const byKey = new Map<string, StoredValue>(stored.map((row) => [`${row.date} ${row.currency}`, row]));
    const datesStored = new Set(stored.map((row) => row.date));
    const inserts: WorkbookValue[] = [];
    for (const sheet of parsed.sheets) {
      let changed = false;
      for (const rate of sheet.rates) {
        const value: WorkbookValue = {
          date: sheet.date,
          currency: rate.currency,
          rate: rate.rate,
          bid: rate.bid,
          sourceDetail: `${fileName}#${sheet.name}`,
        };
        const row = byKey.get(`${sheet.date} ${rate.currency}`);
        if (!row) {
          inserts.push(value);
          changed = true;
          continue;
        }
        const sameRate = new Decimal(row.rate).equals(rate.rate);
        const sameBid = row.bid === null ? rate.bid === null : rate.bid !== null && new Decimal(row.bid).equals(rate.bid);
        if (row.source === "workbook" && sameRate && sameBid) continue;
        if (!sameRate) {
          changed = true;
          if (row.source === "home-page") {
            summary.workbook_won.push({ date: sheet.date, currency: rate.currency, home_page: row.rate, workbook: rate.rate });
          }
        }
        // Same rate from the home page: the row now records the bank's workbook as its source, and the bid.
        await updateWithWorkbookValue(tx, row.id, value, fetchedAt);
      }
      if (!datesStored.has(sheet.date)) summary.dates_added++;
      else if (changed) summary.dates_changed++;
      else summary.dates_unchanged++;
    }
    await insertWorkbookValues(tx, inserts, fetchedAt);
  });
  invalidateRateReads();
  return summary;
}

/** Room for the multipart framing around the file: boundaries, headers of the part. */
const MULTIPART_OVERHEAD_BYTES = 16 * 1024;

/**
 * The workbook of a POST /rates/import: a multipart/form-data field `file`, or the raw body (any other
 * content type), named by `?name=` or else "upload.xls". 413 past MAX_WORKBOOK_BYTES, read no further; 422
 * when there is no file.
 */
export async function readWorkbookUpload(request: Request): Promise<{ bytes: Uint8Array; name: string }> {
  const contentType = request.headers.get("content-type") ?? "";
  const isMultipart = /^multipart\/form-data\b/i.test(contentType);
  const body = await readBody(request, MAX_WORKBOOK_BYTES + (isMultipart ? MULTIPART_OVERHEAD_BYTES : 0));
  const nameParam = new URL(request.url).searchParams.get("name");
  if (!isMultipart) {
    if (body.byteLength === 0) {
      throw unprocessable("The request has no workbook: send it as the body, or as the form field `file`.", [
        { field: "body", message: "is empty" },
      ]);
    }
    return { bytes: body, name: fileNameOf(nameParam) };
  }
  let form: FormData;
  try {
    // Parsed from the bounded copy: request.formData() would buffer a body of any size first.
    form = await new Response(body, { headers: { "Content-Type": contentType } }).formData();
  } catch {
    throw unprocessable("The multipart/form-data body cannot be read.", [{ field: "form", message: "not valid multipart/form-data" }]);
  }
  const file = form.get("file");
  if (!(file instanceof Blob) || file.size === 0) {
    throw unprocessable("The form has no workbook: send it in the field `file`.", [
      { field: "form.file", message: file === null ? "is missing" : "is not a non-empty file" },
    ]);
  }
  if (file.size > MAX_WORKBOOK_BYTES) {
    throw payloadTooLarge(`The file is ${file.size} bytes; at most ${MAX_WORKBOOK_BYTES} are read.`);
  }
  return { bytes: new Uint8Array(await file.arrayBuffer()), name: fileNameOf(nameParam ?? (file as File).name) };
}

/** A file name fit to print: its last path segment, printable characters only, at most 100. */
function fileNameOf(name: string | null | undefined): string {
  const base = (name ?? "").split(/[\\/]/).pop() ?? "";
  const clean = base.replace(/[^\p{L}\p{N} ._()-]/gu, "").trim().slice(0, 100);
  return clean === "" ? "upload.xls" : clean;
}

/** importWorkbook for an upload: a file that cannot be read is a 422 problem naming why, nothing stored. */
export async function importUploadedWorkbook(request: Request): Promise<ImportSummary> {
  const { bytes, name } = await readWorkbookUpload(request);
  try {
    return await importWorkbook(bytes, name);
  } catch (error) {
    if (!(error instanceof WorkbookError)) throw error;
    throw unprocessable(`The file ${name} ${error.message}. Nothing was stored.`, [{ field: "file", message: error.message }]);
  }
}
