import { rateBadgeSvg } from "@/components/rates/rate-card-markup";
import { corsPreflight, withCors } from "@/lib/http/cors";
import { parseKnownQuery } from "@/lib/http/request";
import { route } from "@/lib/http/route";
import { getRateInForce } from "@/lib/rates/published-rate";
import { serveRateRead } from "@/lib/rates/read-cache";
import { rateCardQuerySchema } from "@/lib/rates/schemas";

/**
 * @swagger
 * /rates/badge.svg:
 *   get:
 *     tags: [Rates]
 *     summary: The rate in force today as a badge for another site
 *     description: >
 *       An SVG image (`<img src=".../rates/badge.svg?currency=USD&lang=es">`) saying "BCV USD | 236,4587 Bs · 26
 *       nov 2026": the rate of the currency in force today in Caracas (that of its newest value date on or before
 *       today; never a rate published ahead for tomorrow) in bolivares per unit, every published decimal, and its
 *       value date, written as the language writes them (es by default). Its title names the source, the Banco
 *       Central de Venezuela, whose terms allow use without profit with the source cited and ask written consent
 *       for other uses. Cached like the other reads (ETag, If-None-Match, Cache-Control). 400 for a currency the
 *       bank does not publish or a malformed or unknown parameter, 404 when none of its rates is in force yet.
 *     parameters:
 *       - $ref: "#/components/parameters/RateCardQuery.currency"
 *       - $ref: "#/components/parameters/RateCardQuery.lang"
 *     responses:
 *       200:
 *         description: The badge
 *         headers:
 *           ETag: { schema: { type: string } }
 *           Cache-Control: { schema: { type: string } }
 *           Link: { schema: { type: string }, description: "The rates' source (rel=via)" }
 *         content:
 *           image/svg+xml:
 *             schema: { type: string }
 *       304: { $ref: "#/components/responses/NotModified" }
 *       400: { $ref: "#/components/responses/BadRequest" }
 *       404: { $ref: "#/components/responses/NotFound" }
 */
export const GET = withCors(
  route((request) => {
    const { currency, lang } = parseKnownQuery(request, rateCardQuerySchema);
    return serveRateRead(request, async () => rateBadgeSvg(await getRateInForce(currency), lang), {
      contentType: "image/svg+xml; charset=utf-8",
    });
  }),
);

export const OPTIONS = corsPreflight(["GET", "HEAD"]);
