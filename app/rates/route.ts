import { requireUser } from "@/lib/auth/guard";
import { corsPreflight, withCors } from "@/lib/http/cors";
import { parseKnownQuery } from "@/lib/http/request";
import { json, route } from "@/lib/http/route";
import { withDecimals } from "@/lib/rates/decimal-text";
import { serveRateRead } from "@/lib/rates/read-cache";
import { latestRateQuerySchema } from "@/lib/rates/schemas";
import { fetchAndStoreRate, getLatestRate } from "@/lib/rates/service";
import { RATE_SOURCE_HEADERS } from "@/lib/rates/source";

/**
 * @swagger
 * /rates/:
 *   get:
 *     tags: [Rates]
 *     summary: The newest published rate, or with in_force=true the rate in force today
 *     description: >
 *       Also served at /rates. Without in_force, the rate of the newest stored value date: after the bank's
 *       afternoon publication that is the next rate, whose `in_force` is false. Which rate is today's: the bank
 *       publishes, around 5 p.m. in Caracas, the rate whose value date is the next business day; the rate in force
 *       on a day is the one with the newest value date on or before it, so on weekends and holidays the last
 *       business day's rate stays in force. Every answer says `in_force` and `published_at`.
 *       Send the ETag back in If-None-Match to get 304 while it is unchanged.
 *       Callable from any origin (CORS).
 *     parameters:
 *       - $ref: "#/components/parameters/LatestRateQuery.currencies"
 *       - $ref: "#/components/parameters/LatestRateQuery.currency"
 *       - $ref: "#/components/parameters/LatestRateQuery.include"
 *       - $ref: "#/components/parameters/LatestRateQuery.in_force"
 *       - $ref: "#/components/parameters/LatestRateQuery.decimals"
 *     responses:
 *       200:
 *         description: The newest rate
 *         headers:
 *           ETag: { schema: { type: string } }
 *           Cache-Control: { schema: { type: string } }
 *         content:
 *           application/json:
 *             schema: { $ref: "#/components/schemas/Rate" }
 *             examples:
 *               dollar: { value: { dollar: 197.2456, date: "2025-10-14", in_force: true, published_at: "2025-10-13T21:04:11.482Z" } }
 *               next: { summary: "After the afternoon's publication", value: { dollar: 199.1034, date: "2025-10-15", in_force: false, published_at: "2025-10-14T21:03:52.020Z" } }
 *               inForce: { summary: "in_force=true on a Saturday", value: { dollar: 70.5852, date: "2025-04-05", value_date: "2025-04-04", in_force: true, published_at: "2025-04-03T21:02:40.117Z" } }
 *               currencies: { value: { dollar: 197.2456, date: "2025-10-14", in_force: true, published_at: "2025-10-13T21:04:11.482Z", rates: { EUR: 228.09086692, CNY: 27.65836079 } } }
 *       304: { $ref: "#/components/responses/NotModified" }
 *       400: { $ref: "#/components/responses/BadRequest" }
 *       404: { $ref: "#/components/responses/NotFound" }
 *   post:
 *     tags: [Rates]
 *     summary: Fetch the current rate from the central bank and store it
 *     description: >
 *       Reads the Banco Central de Venezuela's page and stores every currency it shows (USD, EUR, CNY, TRY,
 *       RUB) under its value date (Fecha Valor), or today in RATES_TIMEZONE where the page gives none; a
 *       currency block that is missing or unreadable does not lose the others. A value a workbook stored for
 *       that date is kept (the bank's record wins). Transient failures are retried; simultaneous calls share
 *       one fetch. Nothing is stored when the page cannot be fetched, redirects to another host, or shows no
 *       plausible dollar rate (a decimal of at most 12+12 digits) or value date (at most 14 days before and 7
 *       after today). Callable from other origins with a bearer token; cookies are never accepted across origins.
 *     security: [{ bearerAuth: [] }]
 *     responses:
 *       201:
 *         description: A rate for a new date was stored
 *         content:
 *           application/json:
 *             schema: { $ref: "#/components/schemas/StoredRate" }
 *       200:
 *         description: The rate of a date already stored was refreshed (same id)
 *         content:
 *           application/json:
 *             schema: { $ref: "#/components/schemas/StoredRate" }
 *       401: { $ref: "#/components/responses/Unauthorized" }
 *       502: { $ref: "#/components/responses/BadGateway" }
 *       504: { $ref: "#/components/responses/GatewayTimeout" }
 */
export const GET = withCors(
  route((request) =>
    serveRateRead(request, async () => {
      const query = parseKnownQuery(request, latestRateQuerySchema);
      return withDecimals(await getLatestRate(query), query.decimals);
    }),
  ),
);

export const POST = withCors(
  route(async (request) => {
    await requireUser(request);
    const { rate, created } = await fetchAndStoreRate();
    return json(rate, {
      status: created ? 201 : 200,
      headers: { ...RATE_SOURCE_HEADERS, "Cache-Control": "no-store" },
    });
  }),
);

export const OPTIONS = corsPreflight(["GET", "HEAD", "POST"]);
