import { corsPreflight, withCors } from "@/lib/http/cors";
import { parseQuery } from "@/lib/http/request";
import { route } from "@/lib/http/route";
import { exportRateHistory, requestedExportFormat } from "@/lib/rates/export";
import { serveRateRead } from "@/lib/rates/read-cache";
import { rateHistoryQuerySchema } from "@/lib/rates/schemas";
import { getRateHistory } from "@/lib/rates/service";

/**
 * @swagger
 * /rates/history:
 *   get:
 *     tags: [Rates]
 *     summary: The stored rates of a date range, newest first
 *     description: >
 *       "Today" is today in RATES_TIMEZONE (default America/Caracas). With neither date the range is
 *       today - 30 days .. today; with only start_date, start_date .. today; with only end_date,
 *       end_date - 30 days .. end_date. start_date and end_date in the answer echo the range used.
 *       At most 3660 days from start_date to end_date. Callable from any origin (CORS).
 *     parameters:
 *       - in: query
 *         name: start_date
 *         required: false
 *         description: First date of the range, YYYY-MM-DD
 *         schema: { $ref: "#/components/schemas/RateHistoryQuery/properties/start_date" }
 *         example: "2026-10-24"
 *       - in: query
 *         name: end_date
 *         required: false
 *         description: Last date of the range, YYYY-MM-DD
 *         schema: { $ref: "#/components/schemas/RateHistoryQuery/properties/end_date" }
 *         example: "2026-11-23"
 *       - in: query
 *         name: currencies
 *         required: false
 *         description: >
 *           Other currencies to include: "all", or ISO 4217 codes separated by commas. Each rate then carries
 *           `rates` (bolivares per unit by code, for the asked currencies that have a rate on that date). An
 *           unknown or malformed code answers 400 naming it. Without it the response is exactly the dollar's.
 *         schema: { $ref: "#/components/schemas/RateCurrenciesQuery/properties/currencies" }
 *         examples:
 *           some: { value: "EUR,CNY", summary: "The euro and the yuan" }
 *           all: { value: "all", summary: "Every stored currency" }
 *       - in: query
 *         name: include
 *         required: false
 *         description: >
 *           "change" adds the previous value date's rate and the change since then: `previous` (the dollar's
 *           previous value date and rate), `change` (bolivares, exact) and `change_percent` (4 decimals, half away
 *           from zero), null on the first stored date; with `currencies`, `changes` gives the same per currency.
 *           Without it the response is byte for byte what it was.
 *         schema: { $ref: "#/components/schemas/RateHistoryQuery/properties/include" }
 *         example: change
 *       - in: query
 *         name: format
 *         required: false
 *         description: >
 *           csv, ndjson or xlsx: the range as a file instead of JSON (csv and ndjson also chosen by an Accept
 *           header that prefers text/csv or application/x-ndjson to application/json). CSV: a header
 *           `date,USD,<asked codes>`, one row per value date, newest first, values as stored (every digit, a
 *           decimal point, an empty cell for a currency without a rate that date), CRLF, RFC 4180 quoting. NDJSON:
 *           one object per line, each exactly an item of the JSON `rates`. XLSX: an Excel workbook of one sheet,
 *           `rates`, laid out as the CSV (the same header, rows and empty cells), with each date a date cell
 *           (shown YYYY-MM-DD) and each value a number cell (up to 8 decimals), so that a spreadsheet set to any
 *           language reads it; written whole, not streamed. Without `currencies` the dollar only;
 *           `currencies=all` every stored currency. Not with include.
 *         schema: { $ref: "#/components/schemas/RateHistoryQuery/properties/format" }
 *     responses:
 *       200:
 *         description: The range used and its rates
 *         headers:
 *           ETag: { schema: { type: string } }
 *           Cache-Control: { schema: { type: string } }
 *           Vary: { schema: { type: string } }
 *           Content-Disposition:
 *             description: >
 *               csv, ndjson and xlsx: attachment; filename="bcv-rates_<asked>_<first>_<last>.<format>": what was asked
 *               (USD, the codes joined by "-", or all) and the first and last value dates in the file (the range asked
 *               when it holds none)
 *             schema: { type: string }
 *         content:
 *           application/json:
 *             schema: { $ref: "#/components/schemas/RateHistory" }
 *           text/csv:
 *             schema: { type: string }
 *             example: "date,USD,EUR\r\n2025-10-14,197.2456,228.09086692\r\n2025-10-13,195.2491,226.03597808\r\n"
 *           application/x-ndjson:
 *             schema: { type: string, description: "One Rate object per line" }
 *             example: "{\"dollar\":197.2456,\"date\":\"2025-10-14\",\"rates\":{\"EUR\":228.09086692}}\n"
 *           application/vnd.openxmlformats-officedocument.spreadsheetml.sheet:
 *             schema: { type: string, format: binary, description: "An Excel workbook laid out as the CSV" }
 *       304: { $ref: "#/components/responses/NotModified" }
 *       400: { $ref: "#/components/responses/BadRequest" }
 *       422: { $ref: "#/components/responses/ValidationError" }
 *       503:
 *         description: >
 *           csv, ndjson and xlsx only: as many exports are under way as the server serves at once
 *           (RATES_EXPORT_MAX_STREAMS, default 8); try again after Retry-After seconds. The JSON history is not limited.
 *         headers:
 *           Retry-After: { schema: { type: integer } }
 *         content:
 *           application/problem+json:
 *             schema: { $ref: "#/components/schemas/Problem" }
 */
// perDay: without end_date the range ends today. Vary: the Accept header may ask for an export instead.
export const GET = withCors(
  route((request) => {
    const format = requestedExportFormat(request);
    if (format) return exportRateHistory(parseQuery(request, rateHistoryQuerySchema), format);
    return serveRateRead(request, () => getRateHistory(parseQuery(request, rateHistoryQuerySchema)), {
      perDay: true,
      headers: { Vary: "Accept" },
    });
  }),
);

export const OPTIONS = corsPreflight(["GET", "HEAD"]);
