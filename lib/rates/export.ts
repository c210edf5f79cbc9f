import path from "node:path";
import { Worker } from "node:worker_threads";
import { LOCALE_COOKIE, type Locale, pickLocale } from "@/i18n/locale";
import { translatorFor } from "@/i18n/translator";
import { badRequest, serviceUnavailable } from "../http/problem";
import { streamPulledText } from "../http/pulled-stream";
import { slotsOf } from "../http/slots";
import { getEnv } from "../server/env";
import { DOLLAR, KNOWN_CURRENCIES, parseCurrencyList } from "./currencies";
import { todayIn } from "./dates";
import { findDateBounds, listCurrencyRatesBetween, listRatesPage, summarizeCurrencies } from "./repository";
import type { RateHistoryQuery } from "./schemas";
import { resolveHistoryRange } from "./service";
import { RATE_SOURCE_HEADERS } from "./source";

/**
 * The history as a file: CSV for spreadsheets, NDJSON for programs, XLSX for a spreadsheet set to any language. Streamed: rows are read about PAGE_ROWS at a
 * time and written a page of lines at a time as the client takes them (a ReadableStream pulled by the
 * response), so ten years of every currency cost the server a page of rows, not the file.
 *
 * CSV (RFC 4180): a header row `date,USD,EUR,...`, one row per value date, newest first as the JSON history;
 * values are the stored decimal text, every published digit, with a decimal point (never a thousands
 * separator); an empty cell where a currency has no rate that date; CRLF line ends; a field that holds a comma,
 * a quote or a line end is quoted, its quotes doubled (the header and values never do, but the rule is kept).
 * NDJSON: one JSON object per line, each exactly an item of the JSON history's `rates`.
 *
 * XLSX: the CSV's layout in a workbook of one sheet, with dates as date cells and values as number cells, so a
 * spreadsheet set to Spanish (which expects `;` and decimal commas, and puts every CSV row in column A) reads
 * it as one set to English does. A workbook is written whole, not streamed: its rows are read a page at a time
 * as for the CSV, then SheetJS writes the file on a worker thread (lib/rates/xlsx-worker.mjs), off the event
 * loop (ten years of every currency take it a few seconds), holding an export slot meanwhile.
 *
 * At most RATES_EXPORT_MAX_STREAMS exports stream at once, in the whole server; one more is answered 503 with
 * Retry-After before it reads anything. A stream holds its slot until it ends: read to the end, cut off by
 * RATES_EXPORT_IDLE_SECONDS, or its client gone. This is what bounds a client that pipelines many exports on
 * one connection (Node parses them all at once and Next runs every handler, and a route handler cannot see the
 * connection its request came on) or opens many connections: each export costs a page and its response's
 * buffer, and there are at most that many.
 */
export type ExportFormat = "csv" | "ndjson" | "xlsx";

// Rows read per page, all currencies together: a page of every currency is ~50 value dates.
const PAGE_ROWS = 1000;
// A slot frees when an export ends: most take well under a second, a stalled one RATES_EXPORT_IDLE_SECONDS.
const RETRY_AFTER_SECONDS = 5;
const exportSlots = slotsOf("rates-export", () => getEnv().RATES_EXPORT_MAX_STREAMS);

const MEDIA_TYPES: Record<ExportFormat, string> = {
  csv: "text/csv; charset=utf-8; header=present",
  ndjson: "application/x-ndjson",
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
};

/**
 * The export a history request asks for, from `format` or, without it, the Accept header's preferred type
 * among application/json, text/csv and application/x-ndjson; undefined for JSON. Cheap when neither is
 * mentioned: the JSON history's cache hits pass through here.
 */
export function requestedExportFormat(request: Request): ExportFormat | undefined {
  const accept = request.headers.get("accept") ?? "";
  if (!request.url.includes("format=") && !accept.includes("text/csv") && !accept.includes("ndjson")) return undefined;
  const format = new URL(request.url).searchParams.get("format");
  if (format === "csv" || format === "ndjson" || format === "xlsx") return format;
  if (format !== null) return undefined; // json, or a value the schema refuses on the JSON path
  return preferredByAccept(accept);
}

/**
 * CSV or NDJSON when the Accept header rates it above JSON: by q, then by how exactly it was named (the type
 * itself over its type/* over any); JSON on a tie, as without an Accept header.
 */
function preferredByAccept(accept: string): ExportFormat | undefined {
  const ranges = accept.split(",").map((range) => {
    const [type, ...params] = range.split(";").map((part) => part.trim().toLowerCase());
    const q = params.find((param) => param.startsWith("q="));
    return { type, q: q ? Number(q.slice(2)) || 0 : 1 };
  });
  const rank = (mediaType: string): [number, number] => {
    let best: [number, number] = [0, -1];
    for (const range of ranges) {
      const exactness =
        range.type === mediaType
          ? 2
          : range.type === `${mediaType.split("/")[0]}/*`
            ? 1
            : range.type === "*/*"
              ? 0
              : -1;
      if (exactness > best[1]) best = [range.q, exactness];
    }
    return best;
  };
  const above = (a: [number, number], b: [number, number]) => a[0] > b[0] || (a[0] === b[0] && a[1] > b[1]);
  const json = rank("application/json");
  const csv = rank("text/csv");
  const ndjson = rank("application/x-ndjson");
  if (csv[0] > 0 && above(csv, json) && !above(ndjson, csv)) return "csv";
  if (ndjson[0] > 0 && above(ndjson, json) && above(ndjson, csv)) return "ndjson";
  return undefined;
}

/**
 * The language of the words in a workbook (its sheet's name and the date column's header), as the pages pick
 * theirs: the language chosen in the site's header (its cookie), else the browser's first language. A
 * spreadsheet is read by a person; CSV and NDJSON, read by programs, keep one header in every language.
 */
export function exportLanguage(request: Request): Locale {
  const cookie = request.headers
    .get("cookie")
    ?.split(";")
    .map((pair) => pair.trim().split("="))
    .find(([name]) => name === LOCALE_COOKIE)?.[1];
  return pickLocale(cookie, request.headers.get("accept-language"));
}

/**
 * A CSV, NDJSON or XLSX answer of the history the query asks for, the workbook's words in `language`; 400 for
 * include=change with it.
 */
export async function exportRateHistory(
  query: RateHistoryQuery,
  format: ExportFormat,
  language: Locale = "en",
): Promise<Response> {
  const asked = parseCurrencyList(query.currencies);
  if (query.include !== undefined) {
    throw badRequest(`include=${query.include} is served with the JSON history only, not with ${format}.`, [
      { field: "query.include", message: `is not available with format ${format}` },
    ]);
  }
  const { start, end } = resolveHistoryRange(query, todayIn(getEnv().RATES_TIMEZONE));
  const release = exportSlots.take();
  if (!release) {
    const limit = getEnv().RATES_EXPORT_MAX_STREAMS;
    throw serviceUnavailable(
      `${limit} history exports are being streamed already, as many as this server streams at once (RATES_EXPORT_MAX_STREAMS); ` +
        `try again in ${RETRY_AFTER_SECONDS} seconds. The JSON history is not limited.`,
      RETRY_AFTER_SECONDS,
    );
  }
  let stream: ReadableStream<Uint8Array> | Uint8Array<ArrayBuffer>;
  let fileName: string;
  try {
    const columns = asked === undefined ? [] : asked === "all" ? await storedCurrencies() : asked;
    const bounds = await findDateBounds(start, end);
    fileName = exportFileName(asked, bounds?.first ?? start, bounds?.last ?? end, format);
    if (format === "xlsx") {
      try {
        stream = await xlsxWorkbook(start, end, columns, language);
      } finally {
        release();
      }
      return exportResponse(stream, format, fileName, "Accept, Accept-Language, Cookie");
    }
    const lines =
      format === "csv"
        ? csvLines(start, end, columns)
        : ndjsonLines(start, end, asked === undefined ? undefined : columns);
    stream = streamPulledText(lines, getEnv().RATES_EXPORT_IDLE_SECONDS * 1000, release);
  } catch (error) {
    release();
    throw error;
  }
  return exportResponse(stream, format, fileName);
}

function exportResponse(body: BodyInit, format: ExportFormat, fileName: string, vary = "Accept"): Response {
  return new Response(body, {
    headers: {
      ...RATE_SOURCE_HEADERS,
      "Content-Type": MEDIA_TYPES[format],
      "Content-Disposition": `attachment; filename="${fileName}"`,
      "Cache-Control": `public, max-age=${getEnv().RATES_CACHE_MAX_AGE_SECONDS}`,
      Vary: vary,
    },
  });
}

/**
 * "bcv-rates_EUR_2025-10-02_2025-10-14.csv": what was asked (USD without `currencies`, the codes joined by "-",
 * or "all") and the first and last value dates in the file, not the range asked (which may start years before
 * the first stored rate); the range asked when it holds none.
 */
export function exportFileName(
  asked: string[] | "all" | undefined,
  first: string,
  last: string,
  format: ExportFormat,
): string {
  const label = asked === undefined ? DOLLAR : asked === "all" ? "all" : asked.join("-");
  return `bcv-rates_${label}_${first}_${last}.${format}`;
}

/** Every currency with a stored rate, in the order of `currencies=all`. */
async function storedCurrencies(): Promise<string[]> {
  const stored = new Set((await summarizeCurrencies()).map((row) => row.currency));
  return KNOWN_CURRENCIES.filter((code) => stored.has(code));
}

type DatedValues = { date: string; dollar: string; values: Map<string, string> };

/** The range's value dates, newest first, with the values of `currencies`: a page of them at a time. */
async function* pagesOfDates(start: string, end: string, currencies: string[]): AsyncGenerator<DatedValues[]> {
  const others = currencies.filter((code) => code !== DOLLAR);
  const pageDates = Math.max(1, Math.floor(PAGE_ROWS / (others.length + 1)));
  let before: string | undefined;
  for (;;) {
    const page = await listRatesPage(start, end, before, pageDates);
    if (page.length === 0) return;
    const values = others.length === 0 ? [] : await listCurrencyRatesBetween(page.at(-1)!.date, page[0].date, others);
    const byDate = new Map<string, Map<string, string>>();
    for (const value of values) {
      let ofDate = byDate.get(value.date);
      if (!ofDate) byDate.set(value.date, (ofDate = new Map()));
      ofDate.set(value.currency, value.rate);
    }
    yield page.map((rate) => {
      const ofDate = byDate.get(rate.date) ?? new Map<string, string>();
      ofDate.set(DOLLAR, rate.dollar);
      return { date: rate.date, dollar: rate.dollar, values: ofDate };
    });
    if (page.length < pageDates) return;
    before = page.at(-1)!.date;
  }
}

const csvField = (text: string) => (/[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text);

async function* csvLines(start: string, end: string, currencies: string[]): AsyncGenerator<string, void, undefined> {
  const columns = [DOLLAR, ...currencies.filter((code) => code !== DOLLAR)];
  yield `${["date", ...columns].map(csvField).join(",")}\r\n`;
  for await (const page of pagesOfDates(start, end, columns)) {
    yield page
      .map((row) => `${[row.date, ...columns.map((code) => row.values.get(code) ?? "")].map(csvField).join(",")}\r\n`)
      .join("");
  }
}

async function* ndjsonLines(
  start: string,
  end: string,
  currencies: string[] | undefined,
): AsyncGenerator<string, void, undefined> {
  for await (const page of pagesOfDates(start, end, currencies ?? [])) {
    let text = "";
    for (const row of page) {
      const line: { dollar: number; date: string; rates?: Record<string, number> } = {
        dollar: Number(row.dollar),
        date: row.date,
      };
      if (currencies !== undefined) {
        line.rates = {};
        for (const code of currencies) {
          const value = row.values.get(code);
          if (value !== undefined) line.rates[code] = Number(value);
        }
      }
      text += `${JSON.stringify(line)}\n`;
    }
    yield text;
  }
}

/** The worker's file, by path: it runs as it is in the repository (see its header), from the app's folder. */
const XLSX_WORKER_FILE = path.join(process.cwd(), "lib", "rates", "xlsx-worker.mjs");

/** The range's rows as the CSV lays them out, written as an .xlsx workbook by the worker, its words in `language`. */
async function xlsxWorkbook(
  start: string,
  end: string,
  currencies: string[],
  language: Locale,
): Promise<Uint8Array<ArrayBuffer>> {
  const t = translatorFor(language, "rateExport");
  const words = { sheet: t("sheet"), date: t("date") };
  const columns = [DOLLAR, ...currencies.filter((code) => code !== DOLLAR)];
  const rows: string[][] = [];
  for await (const page of pagesOfDates(start, end, columns)) {
    for (const row of page) rows.push([row.date, ...columns.map((code) => row.values.get(code) ?? "")]);
  }
  return new Promise((resolve, reject) => {
    const worker = new Worker(XLSX_WORKER_FILE, { workerData: { columns, rows, words }, stdout: false, stderr: false });
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      void worker.terminate();
      outcome();
    };
    worker.once("message", (message: { bytes?: ArrayBuffer; failed?: string }) =>
      settle(() =>
        message.bytes
          ? resolve(new Uint8Array(message.bytes))
          : reject(new Error(`The workbook could not be written: ${message.failed}`)),
      ),
    );
    worker.once("error", (error) => settle(() => reject(error)));
    worker.once("exit", (code) =>
      settle(() => reject(new Error(`The workbook writer stopped (exit code ${code}) before it answered`))),
    );
  });
}
