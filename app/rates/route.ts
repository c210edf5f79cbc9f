import { requireUser } from "@/lib/auth/guard";
import { corsPreflight, withCors } from "@/lib/http/cors";
import { parseQuery } from "@/lib/http/request";
import { json, route } from "@/lib/http/route";
import { serveRateRead } from "@/lib/rates/read-cache";
import { rateCurrenciesQuerySchema } from "@/lib/rates/schemas";
import { fetchAndStoreRate, getLatestRate } from "@/lib/rates/service";
import { RATE_SOURCE_HEADERS } from "@/lib/rates/source";

/**
 * @swagger
 * /rates/:
 *   get:
 *     tags: [Rates]
 *     summary: The rate of the newest stored date
 *     description: >
 *       Also served at /rates. Send the ETag back in If-None-Match to get 304 while it is unchanged.
 *       Callable from any origin (CORS).
 *     parameters:
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
 *         schema: { $ref: "#/components/schemas/RateCurrenciesQuery/properties/include" }
 *         example: change
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
 *               dollar: { value: { dollar: 197.2456, date: "2025-10-14" } }
 *               currencies: { value: { dollar: 197.2456, date: "2025-10-14", rates: { EUR: 228.09086692, CNY: 27.65836079 } } }
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
  route((request) => serveRateRead(request, () => getLatestRate(parseQuery(request, rateCurrenciesQuerySchema)))),
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
