import { parseParams } from "@/lib/http/request";
import { route } from "@/lib/http/route";
import { rateDateParamsSchema } from "@/lib/rates/schemas";
import { serveRateRead } from "@/lib/rates/read-cache";
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
 *       Send the ETag back in If-None-Match to get 304 while it is unchanged.
 *     parameters:
 *       - in: path
 *         name: date
 *         required: true
 *         description: A calendar date, YYYY-MM-DD
 *         schema: { $ref: "#/components/schemas/RateDateParams/properties/date" }
 *         example: "2026-11-23"
 *     responses:
 *       200:
 *         description: The rate of that date
 *         headers:
 *           ETag: { schema: { type: string } }
 *           Cache-Control: { schema: { type: string } }
 *         content:
 *           application/json:
 *             schema: { $ref: "#/components/schemas/Rate" }
 *       304: { $ref: "#/components/responses/NotModified" }
 *       400: { $ref: "#/components/responses/BadRequest" }
 *       404: { $ref: "#/components/responses/NotFound" }
 *       422: { $ref: "#/components/responses/ValidationError" }
 */
export const GET = route<{ params: Promise<{ date: string }> }>((request, { params }) =>
  serveRateRead(request, async () => getRateByDate(parseParams(await params, rateDateParamsSchema).date)),
);
