import { requireUser } from "@/lib/auth/guard";
import { json, route } from "@/lib/http/route";
import { serveRateRead } from "@/lib/rates/read-cache";
import { fetchAndStoreRate, getLatestRate } from "@/lib/rates/service";

/**
 * @swagger
 * /rates/:
 *   get:
 *     tags: [Rates]
 *     summary: The rate of the newest stored date
 *     description: Also served at /rates. Send the ETag back in If-None-Match to get 304 while it is unchanged.
 *     responses:
 *       200:
 *         description: The newest rate
 *         headers:
 *           ETag: { schema: { type: string } }
 *           Cache-Control: { schema: { type: string } }
 *         content:
 *           application/json:
 *             schema: { $ref: "#/components/schemas/Rate" }
 *       304: { $ref: "#/components/responses/NotModified" }
 *       404: { $ref: "#/components/responses/NotFound" }
 *   post:
 *     tags: [Rates]
 *     summary: Fetch the current rate from the central bank and store it
 *     description: >
 *       Reads the Banco Central de Venezuela's page and stores the dollar rate under its value date
 *       (Fecha Valor), or today in RATES_TIMEZONE where the page gives none. Transient failures are retried.
 *       Nothing is stored when the page cannot be fetched or read.
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
export const GET = route((request) => serveRateRead(request, () => getLatestRate()));

export const POST = route(async (request) => {
  await requireUser(request);
  const { rate, created } = await fetchAndStoreRate();
  return json(rate, { status: created ? 201 : 200, headers: { "Cache-Control": "no-store" } });
});
