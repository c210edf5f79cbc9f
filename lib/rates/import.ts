import Decimal from "decimal.js";
import { badRequest, fieldErrorsOf, invalidRequest, payloadTooLarge, serviceUnavailable } from "../http/problem";
import { parseQuery, readBody } from "../http/request";
import { getEnv } from "../server/env";
import { todayIn } from "./dates";
import { invalidateRateReads } from "./read-cache";
import {
  inRatesTransaction,
  insertWorkbookValues,
  listStoredValuesOn,
  type StoredValue,
  updateWithWorkbookValue,
  type WorkbookValue,
} from "./repository";
import { type ImportSummary, rateImportFormSchema, rateImportQuerySchema } from "./schemas";
import { MAX_WORKBOOK_BYTES, parseWorkbook, WorkbookBusyError, WorkbookError } from "./workbook";

export interface ImportOptions {
  /** Replace values the bank's home page stored for the same date and currency (the admin asked for it). */
  overwrite: boolean;
  /** The admin importing, recorded on every value stored; null for the operator's command on the server. */
  importedById: number | null;
}

/**
 * Imports one of the central bank's workbooks: every readable sheet's rates under its Fecha Valor, in one
 * transaction (the file is stored whole or not at all). Per value date the summary says whether it was
 * added, changed or unchanged; importing the same file again changes nothing.
 *
 * Precedence: the home page is the bank's live publication, fetched by the server itself, while a workbook is
 * a file someone uploaded. So a value the home page stored is never replaced unless `overwrite` is set (the
 * summary lists what was kept, or replaced); and a sheet dated after today is skipped, since future value
 * dates come only from the page (an import must not make a future rate the "latest"). A value an earlier
 * import stored is replaced by a newer import's. Throws WorkbookError when the file cannot be read, or has no
 * sheet left to store; nothing is stored then.
 */
export async function importWorkbook(
  bytes: Uint8Array,
  fileName: string,
  options: ImportOptions,
): Promise<ImportSummary> {
  const today = todayIn(getEnv().RATES_TIMEZONE);
  const { WORKBOOK_READ_TIMEOUT_MS, WORKBOOK_MAX_WAITING_READS } = getEnv();
  const parsed = await parseWorkbook(bytes, today, WORKBOOK_READ_TIMEOUT_MS, WORKBOOK_MAX_WAITING_READS);
  const sheets = parsed.sheets.filter((sheet) => sheet.date <= today);
  const future = parsed.sheets
    .filter((sheet) => sheet.date > today)
    .map((sheet) => ({
      sheet: sheet.name,
      reason: `its Fecha Valor ${sheet.date} is after today (${today}): future value dates come only from the bank's home page`,
    }));
  if (sheets.length === 0) {
    throw new WorkbookError(
      `has no sheet dated today (${today}) or earlier; future value dates come only from the bank's home page`,
    );
  }
  const fetchedAt = new Date();
  const dates = sheets.map((sheet) => sheet.date).sort();
  const summary: ImportSummary = {
    file: fileName,
    overwrite: options.overwrite,
    sheets_read: sheets.length,
    dates_added: 0,
    dates_changed: 0,
    dates_unchanged: 0,
    values_stored: 0,
    first_date: dates[0],
    last_date: dates.at(-1)!,
    currencies: [...new Set(sheets.flatMap((sheet) => sheet.rates.map((rate) => rate.currency)))].sort(),
    sheets_skipped: [...parsed.skipped, ...future],
    rows_skipped: sheets.flatMap((sheet) => sheet.skippedRows.map((reason) => ({ sheet: sheet.name, reason }))),
    home_page_kept: [],
    workbook_won: [],
  };

  await inRatesTransaction(async (tx) => {
    const stored = await listStoredValuesOn(tx, dates);
    const byKey = new Map<string, StoredValue>(stored.map((row) => [`${row.date} ${row.currency}`, row]));
    const datesStored = new Set(stored.map((row) => row.date));
    const inserts: WorkbookValue[] = [];
    for (const sheet of sheets) {
      let changed = false;
      for (const rate of sheet.rates) {
        const value: WorkbookValue = {
          date: sheet.date,
          currency: rate.currency,
          rate: rate.rate,
          bid: rate.bid,
          sourceDetail: `${fileName}#${sheet.name}`,
          importedById: options.importedById,
        };
        const row = byKey.get(`${sheet.date} ${rate.currency}`);
        if (!row) {
          inserts.push(value);
          changed = true;
          continue;
        }
        const sameRate = new Decimal(row.rate).equals(rate.rate);
        if (row.source === "home-page" && !options.overwrite) {
          if (!sameRate)
            summary.home_page_kept.push({
              date: sheet.date,
              currency: rate.currency,
              home_page: row.rate,
              workbook: rate.rate,
            });
          continue;
        }
        const sameBid =
          row.bid === null ? rate.bid === null : rate.bid !== null && new Decimal(row.bid).equals(rate.bid);
        if (row.source === "workbook" && sameRate && sameBid) continue;
        if (!sameRate) {
          changed = true;
          if (row.source === "home-page") {
            summary.workbook_won.push({
              date: sheet.date,
              currency: rate.currency,
              home_page: row.rate,
              workbook: rate.rate,
            });
          }
        }
        // With overwrite, the same rate from the home page: the row now records the workbook as its source, and the bid.
        await updateWithWorkbookValue(tx, row.id, value, fetchedAt);
        summary.values_stored++;
      }
      if (!datesStored.has(sheet.date)) summary.dates_added++;
      else if (changed) summary.dates_changed++;
      else summary.dates_unchanged++;
    }
    await insertWorkbookValues(tx, inserts, fetchedAt);
    summary.values_stored += inserts.length;
  });
  invalidateRateReads();
  return summary;
}

/** Room for the multipart framing around the file: boundaries, headers of the part. */
const MULTIPART_OVERHEAD_BYTES = 16 * 1024;

/**
 * The workbook of a POST /rates/import: a multipart/form-data field `file`, or the raw body (any other
 * content type), named by `?name=` or else "upload.xls". 413 past MAX_WORKBOOK_BYTES, read no further; 400
 * when there is no file.
 */
export async function readWorkbookUpload(
  request: Request,
): Promise<{ bytes: Uint8Array; name: string; overwrite: boolean }> {
  const contentType = request.headers.get("content-type") ?? "";
  const isMultipart = /^multipart\/form-data\b/i.test(contentType);
  const body = await readBody(request, MAX_WORKBOOK_BYTES + (isMultipart ? MULTIPART_OVERHEAD_BYTES : 0));
  if (!isMultipart) {
    if (body.byteLength === 0) {
      throw badRequest("The request has no workbook: send it as the body, or as the form field `file`.", [
        { field: "body", message: "is empty" },
      ]);
    }
    const query = parseQuery(request, rateImportQuerySchema);
    return { bytes: body, name: fileNameOf(query.name), overwrite: query.overwrite === "true" };
  }
  let form: FormData;
  try {
    // Parsed from the bounded copy: request.formData() would buffer a body of any size first.
    form = await new Response(body, { headers: { "Content-Type": contentType } }).formData();
  } catch {
    throw badRequest("The multipart/form-data body cannot be read.", [
      { field: "form", message: "not valid multipart/form-data" },
    ]);
  }
  const fields = rateImportFormSchema.safeParse({
    file: form.get("file") ?? undefined,
    overwrite: form.get("overwrite") ?? undefined,
  });
  if (!fields.success) {
    const errors = fieldErrorsOf(fields.error, "form");
    if (errors.some((error) => error.field === "form.file"))
      throw badRequest("The form has no workbook: send it in the field `file`.", errors);
    throw invalidRequest(fields.error, "form");
  }
  const { file } = fields.data;
  if (file.size > MAX_WORKBOOK_BYTES) {
    throw payloadTooLarge(`The file is ${file.size} bytes; at most ${MAX_WORKBOOK_BYTES} are read.`);
  }
  const query = parseQuery(request, rateImportQuerySchema);
  return {
    bytes: new Uint8Array(await file.arrayBuffer()),
    name: fileNameOf(query.name ?? file.name),
    // The form's own field wins over the query's.
    overwrite: (fields.data.overwrite ?? query.overwrite) === "true",
  };
}

/** A file name fit to print: its last path segment, printable characters only, at most 100. */
function fileNameOf(name: string | null | undefined): string {
  const base = (name ?? "").split(/[\\/]/).pop() ?? "";
  const clean = base
    .replace(/[^\p{L}\p{N} ._()-]/gu, "")
    .trim()
    .slice(0, 100);
  return clean === "" ? "upload.xls" : clean;
}

/**
 * importWorkbook for an upload by an admin (the caller checked the role), recorded as theirs: a file that
 * cannot be read is a 400 problem naming why, nothing stored.
 */
export async function importUploadedWorkbook(request: Request, admin: { id: number }): Promise<ImportSummary> {
  const { bytes, name, overwrite } = await readWorkbookUpload(request);
  try {
    return await importWorkbook(bytes, name, { overwrite, importedById: admin.id });
  } catch (error) {
    if (error instanceof WorkbookBusyError)
      throw serviceUnavailable(`The file ${name} was not read: ${error.message}.`, 5);
    if (!(error instanceof WorkbookError)) throw error;
    throw badRequest(`The file ${name} ${error.message}. Nothing was stored.`, [
      { field: "file", message: error.message },
    ]);
  }
}
