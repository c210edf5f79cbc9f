import { corsPreflight, withCors } from "@/lib/http/cors";
import { parseKnownQuery } from "@/lib/http/request";
import { route } from "@/lib/http/route";
import { withDecimals } from "@/lib/rates/decimal-text";
import { exportLanguage, exportRateHistory, requestedExportFormat } from "@/lib/rates/export";
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
 *       - $ref: "#/components/parameters/RateHistoryQuery.start_date"
 *       - $ref: "#/components/parameters/RateHistoryQuery.end_date"
 *       - $ref: "#/components/parameters/RateHistoryQuery.currencies"
 *       - $ref: "#/components/parameters/RateHistoryQuery.include"
 *       - $ref: "#/components/parameters/RateHistoryQuery.format"
 *       - $ref: "#/components/parameters/RateHistoryQuery.decimals"
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
    if (format)
      return exportRateHistory(parseKnownQuery(request, rateHistoryQuerySchema), format, exportLanguage(request));
    return serveRateRead(
      request,
      async () => {
        const query = parseKnownQuery(request, rateHistoryQuerySchema);
        return withDecimals(await getRateHistory(query), query.decimals);
      },
      {
        perDay: true,
        headers: { Vary: "Accept" },
      },
    );
  }),
);

export const OPTIONS = corsPreflight(["GET", "HEAD"]);
