import { cacheableJson } from "@/lib/http/cache";
import { corsPreflight, withCors } from "@/lib/http/cors";
import { rejectUnknownQuery } from "@/lib/http/request";
import { route } from "@/lib/http/route";
import { listCurrencies } from "@/lib/rates/service";
import { RATE_SOURCE_HEADERS } from "@/lib/rates/source";

/**
 * @swagger
 * /currencies:
 *   get:
 *     tags: [Rates]
 *     summary: Every currency with stored rates
 *     description: >
 *       Each currency with a stored rate: its ISO 4217 code and name, its first and last value date and how
 *       many dates it has. USD first, then by code. Callable from any origin (CORS); send the ETag back in
 *       If-None-Match to get 304 while it is unchanged.
 *     responses:
 *       200:
 *         description: The stored currencies
 *         headers:
 *           ETag: { schema: { type: string } }
 *           Cache-Control: { schema: { type: string } }
 *         content:
 *           application/json:
 *             schema: { $ref: "#/components/schemas/CurrencyList" }
 *             example:
 *               currencies:
 *                 - { code: USD, name: US dollar, first_date: "2025-01-03", last_date: "2025-10-14", dates: 125 }
 *                 - { code: EUR, name: Euro, first_date: "2025-01-03", last_date: "2025-10-14", dates: 125 }
 *                 - { code: MXN, name: Mexican peso, first_date: "2025-01-03", last_date: "2025-10-14", dates: 125 }
 *       304: { $ref: "#/components/responses/NotModified" }
 *       400: { $ref: "#/components/responses/BadRequest" }
 */
export const GET = withCors(
  route(async (request) => {
    rejectUnknownQuery(request, []);
    return cacheableJson(request, await listCurrencies(), { headers: RATE_SOURCE_HEADERS });
  }),
);

export const OPTIONS = corsPreflight(["GET", "HEAD"]);
