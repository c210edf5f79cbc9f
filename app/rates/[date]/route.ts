import { corsPreflight, withCors } from "@/lib/http/cors";
import { parseParams, parseQuery } from "@/lib/http/request";
import { route } from "@/lib/http/route";
import { serveRateRead } from "@/lib/rates/read-cache";
import { rateByDateQuerySchema, rateDateParamsSchema } from "@/lib/rates/schemas";
import { getRateByDate } from "@/lib/rates/service";

/**
 * @swagger
 * /rates/{date}:
 *   get:
 *     tags: [Rates]
 *     summary: The rate of one date
 *     description: >
 *       404 when that date has no rate; the detail names the nearest earlier date that has one. A path that is
 *       not valid percent-encoding answers 400.
 *       Send the ETag back in If-None-Match to get 304 while it is unchanged. Callable from any origin (CORS).
 *     parameters:
 *       - in: path
 *         name: date
 *         required: true
 *         description: A calendar date, YYYY-MM-DD
 *         schema: { $ref: "#/components/schemas/RateDateParams/properties/date" }
 *         example: "2025-10-14"
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
 *         schema: { $ref: "#/components/schemas/RateByDateQuery/properties/include" }
 *         example: change
 *       - in: query
 *         name: in_force
 *         required: false
 *         description: >
 *           "true" answers the rate in force on the date: that of the latest value date on or before it (the bank
 *           publishes none for weekends and holidays). `date` is then the date asked and `value_date` the value
 *           date whose rate it is. 404 before the first stored rate, or for a date after both today and the newest
 *           value date (not known yet). Without it (or "false") a date without a rate of its own answers 404.
 *         schema: { $ref: "#/components/schemas/RateByDateQuery/properties/in_force" }
 *         example: "true"
 *     responses:
 *       200:
 *         description: The rate of that date
 *         headers:
 *           ETag: { schema: { type: string } }
 *           Cache-Control: { schema: { type: string } }
 *         content:
 *           application/json:
 *             schema: { $ref: "#/components/schemas/Rate" }
 *             examples:
 *               inForce: { summary: "in_force=true on a Saturday", value: { dollar: 70.5852, date: "2025-04-05", value_date: "2025-04-04" } }
 *       304: { $ref: "#/components/responses/NotModified" }
 *       400: { $ref: "#/components/responses/BadRequest" }
 *       404: { $ref: "#/components/responses/NotFound" }
 *       422: { $ref: "#/components/responses/ValidationError" }
 */
export const GET = withCors(
  route<{ params: Promise<{ date: string }> }>((request, { params }) =>
    serveRateRead(request, async () =>
      getRateByDate(parseParams(await params, rateDateParamsSchema).date, parseQuery(request, rateByDateQuerySchema)),
    ),
  ),
);

export const OPTIONS = corsPreflight(["GET", "HEAD"]);
