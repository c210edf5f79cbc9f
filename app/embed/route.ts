import { rateEmbedHtml } from "@/components/rates/rate-card-markup";
import { parseKnownQuery } from "@/lib/http/request";
import { route } from "@/lib/http/route";
import { getCardRates } from "@/lib/rates/published-rate";
import { serveRateRead } from "@/lib/rates/read-cache";
import { rateEmbedQuerySchema } from "@/lib/rates/schemas";

/**
 * The one page any site may frame: no script, styles of its own, links that leave the frame. Every other page
 * keeps `frame-ancestors 'none'` (proxy.ts, lib/http/security-headers.ts), which skips this path.
 */
const EMBED_HEADERS = {
  "Content-Security-Policy":
    "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors *",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
};

/**
 * @swagger
 * /embed:
 *   get:
 *     tags: [Rates]
 *     summary: The rate in force today as a small card for another site's iframe
 *     description: >
 *       An HTML page of about 320 x 150 px (`<iframe src=".../embed?currency=USD&lang=es">`): the rate of the
 *       currency in force today in Caracas (that of its newest value date on or before today) in bolivares per
 *       unit, its value date, and, once the bank has published it ahead (around 5 p.m. the day before), the next
 *       rate and the day it comes into force ("vigente desde el miércoles 2 dic"); the source (the Banco Central de Venezuela)
 *       and the bank's terms of use, linked. Any site may frame it (`frame-ancestors *`); it runs no script.
 *       Before the currency's first value date (only the next rate stored, as after a first fetch in the
 *       evening) it says no rate is in force yet and shows the next one. Cached like the other reads. 400 for a
 *       currency the bank does not publish, 404 when none of its rates is stored; 400 also for a malformed or
 *       unknown parameter.
 *     parameters:
 *       - $ref: "#/components/parameters/RateEmbedQuery.currency"
 *       - $ref: "#/components/parameters/RateEmbedQuery.lang"
 *       - $ref: "#/components/parameters/RateEmbedQuery.theme"
 *     responses:
 *       200:
 *         description: The card
 *         headers:
 *           ETag: { schema: { type: string } }
 *           Cache-Control: { schema: { type: string } }
 *           Content-Security-Policy: { schema: { type: string }, description: "Allows framing by any site" }
 *         content:
 *           text/html:
 *             schema: { type: string }
 *       304: { $ref: "#/components/responses/NotModified" }
 *       400: { $ref: "#/components/responses/BadRequest" }
 *       404: { $ref: "#/components/responses/NotFound" }
 */
const handle = route((request) => {
  const { currency, lang, theme } = parseKnownQuery(request, rateEmbedQuerySchema);
  return serveRateRead(request, async () => rateEmbedHtml(await getCardRates(currency), lang, theme), {
    contentType: "text/html; charset=utf-8",
  });
});

// On every answer, the problems too: this path gets no headers from the proxy.
export const GET = async (request: Request): Promise<Response> => {
  const response = await handle(request, undefined);
  for (const [name, value] of Object.entries(EMBED_HEADERS)) response.headers.set(name, value);
  return response;
};
