import { cacheableJson } from "@/lib/http/cache";
import { corsPreflight, withCors } from "@/lib/http/cors";
import { route } from "@/lib/http/route";
import { convertAmount, parseConvertQuery } from "@/lib/rates/convert";
import { RATE_SOURCE_HEADERS } from "@/lib/rates/source";

/**
 * @swagger
 * /convert:
 *   get:
 *     tags: [Rates]
 *     summary: Convert an amount between bolivares and a currency, or between two currencies
 *     description: >
 *       Converts at the central bank's rates of `date` (the latest when absent). Where that date has no rate
 *       for both currencies (a weekend, a holiday), the nearest earlier date that has is used, and the answer
 *       says which. Between two foreign currencies the conversion goes through the bolívar. Decimal
 *       arithmetic throughout: the result is decimal text rounded to 8 decimals. `amount` is read as a
 *       program writes it, whatever the caller's language: a dot is the decimal mark and nothing groups
 *       thousands, so fifty thousand is `50000`, `50.000` is fifty and `50,000` or `1.234,56` are refused
 *       (the dashboard's converter reads Spanish and English writing and sends this form). 400 for an unknown
 *       currency, an amount that is not a positive decimal, or a date before the first rate. Callable from
 *       any origin.
 *     parameters:
 *       - $ref: "#/components/parameters/ConvertQuery.amount"
 *       - $ref: "#/components/parameters/ConvertQuery.from"
 *       - $ref: "#/components/parameters/ConvertQuery.to"
 *       - $ref: "#/components/parameters/ConvertQuery.date"
 *     responses:
 *       200:
 *         description: The converted amount, the rate and the date of the rates used
 *         headers:
 *           ETag: { schema: { type: string } }
 *           Cache-Control: { schema: { type: string } }
 *         content:
 *           application/json:
 *             schema: { $ref: "#/components/schemas/Conversion" }
 *             examples:
 *               toBolivares:
 *                 summary: 100 US dollars in bolivares
 *                 value: { amount: "100", from: USD, to: VES, result: "19724.56", rate: "197.2456", date: "2025-10-14", requested_date: null, rates: { USD: "197.2456" } }
 *               acrossCurrencies:
 *                 summary: 100 euros in Mexican pesos, on a Sunday (the Friday's rates are used)
 *                 value: { amount: "100", from: EUR, to: MXN, result: "2126.63607334", rate: "21.266360733416", date: "2025-10-10", requested_date: "2025-10-12", rates: { EUR: "223.63797222", MXN: "10.51604339" } }
 *       304: { $ref: "#/components/responses/NotModified" }
 *       400: { $ref: "#/components/responses/BadRequest" }
 */
export const GET = withCors(
  route(async (request) =>
    cacheableJson(request, await convertAmount(parseConvertQuery(request)), { headers: RATE_SOURCE_HEADERS }),
  ),
);

export const OPTIONS = corsPreflight(["GET", "HEAD"]);
