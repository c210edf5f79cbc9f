import { rateEmbedHtml } from "@/components/rates/rate-card-markup";
import { parseQuery } from "@/lib/http/request";
import { route } from "@/lib/http/route";
import { getPublishedRate } from "@/lib/rates/published-rate";
import { serveRateRead } from "@/lib/rates/read-cache";
import { rateCardQuerySchema } from "@/lib/rates/schemas";

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
 *     summary: The latest rate as a small card for another site's iframe
 *     description: >
 *       An HTML page of about 320 x 150 px (`<iframe src=".../embed?currency=USD&lang=es">`): the newest stored
 *       rate of the currency in bolivares per unit, its value date, the source (the Banco Central de Venezuela)
 *       and the bank's terms of use, linked. Any site may frame it (`frame-ancestors *`); it runs no script.
 *       Cached like the other reads. 400 for a currency the bank does not publish, 404 when none of its rates is
 *       stored yet, 422 for a malformed parameter.
 *     parameters:
 *       - $ref: "#/components/parameters/RateCardQuery.currency"
 *       - $ref: "#/components/parameters/RateCardQuery.lang"
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
 *       422: { $ref: "#/components/responses/ValidationError" }
 */
const handle = route((request) => {
  const { currency, lang } = parseQuery(request, rateCardQuerySchema);
  return serveRateRead(request, async () => rateEmbedHtml(await getPublishedRate(currency), lang), {
    contentType: "text/html; charset=utf-8",
  });
});

// On every answer, the problems too: this path gets no headers from the proxy.
export const GET = async (request: Request): Promise<Response> => {
  const response = await handle(request, undefined);
  for (const [name, value] of Object.entries(EMBED_HEADERS)) response.headers.set(name, value);
  return response;
};
