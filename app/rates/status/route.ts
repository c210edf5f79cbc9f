import { corsPreflight, withCors } from "@/lib/http/cors";
import { rejectUnknownQuery } from "@/lib/http/request";
import { json, route } from "@/lib/http/route";
import { RATE_SOURCE_HEADERS } from "@/lib/rates/source";
import { getRateStatus } from "@/lib/rates/status";

/**
 * @swagger
 * /rates/status:
 *   get:
 *     tags: [Rates]
 *     summary: Whether the rates are current, and how the fetches of the central bank's page went
 *     description: >
 *       The last fetch that stored rates (when, by the schedule or POST /rates/, which value date and
 *       currencies), the last that failed (when, what kind), when the schedule fetches next, the newest stored
 *       value date, and whether that is stale: the bank publishes each business day (Monday to Friday except
 *       RATES_HOLIDAYS), by RATES_STALE_AFTER (default 17:00) in RATES_TIMEZONE, the rate of the next
 *       business day; `business_days_missed` counts the value dates due and not stored. Never cached
 *       (no-store). Callable from any origin (CORS).
 *     responses:
 *       200:
 *         description: The status
 *         headers:
 *           Link: { description: "The rates' source", schema: { type: string } }
 *         content:
 *           application/json:
 *             schema: { $ref: "#/components/schemas/RateStatus" }
 *       400: { $ref: "#/components/responses/BadRequest" }
 */
export const GET = withCors(
  route(async (request) => {
    rejectUnknownQuery(request, []);
    return json(await getRateStatus(), { headers: { ...RATE_SOURCE_HEADERS, "Cache-Control": "no-store" } });
  }),
);

export const OPTIONS = corsPreflight(["GET", "HEAD"]);
