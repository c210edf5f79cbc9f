import { corsPreflight, withCors } from "@/lib/http/cors";
import { parseKnownQuery, parseParams } from "@/lib/http/request";
import { route } from "@/lib/http/route";
import { withDecimals } from "@/lib/rates/decimal-text";
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
 *       - $ref: "#/components/parameters/RateDateParams.date"
 *       - $ref: "#/components/parameters/RateByDateQuery.currencies"
 *       - $ref: "#/components/parameters/RateByDateQuery.include"
 *       - $ref: "#/components/parameters/RateByDateQuery.in_force"
 *       - $ref: "#/components/parameters/RateByDateQuery.decimals"
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
 *               inForce: { summary: "in_force=true on a Saturday", value: { dollar: 70.5852, date: "2025-04-05", value_date: "2025-04-04", in_force: false, published_at: "2025-07-02T12:00:00.000Z" } }
 *       304: { $ref: "#/components/responses/NotModified" }
 *       400: { $ref: "#/components/responses/BadRequest" }
 *       404: { $ref: "#/components/responses/NotFound" }
 */
export const GET = withCors(
  route<{ params: Promise<{ date: string }> }>((request, { params }) =>
    serveRateRead(request, async () => {
      const query = parseKnownQuery(request, rateByDateQuerySchema);
      return withDecimals(
        await getRateByDate(parseParams(await params, rateDateParamsSchema).date, query),
        query.decimals,
      );
    }),
  ),
);

export const OPTIONS = corsPreflight(["GET", "HEAD"]);
