import { requireAdmin } from "@/lib/auth/guard";
import { corsPreflight, withCors } from "@/lib/http/cors";
import { json, route } from "@/lib/http/route";
import { importUploadedWorkbook } from "@/lib/rates/import";

/**
 * @swagger
 * /rates/import:
 *   post:
 *     tags: [Rates]
 *     summary: Import one of the central bank's reference-rate workbooks (admins only)
 *     description: >
 *       Admins only (403 for anyone else). Stores every currency of every sheet of a quarterly workbook of the
 *       Banco Central de Venezuela (Excel 97 .xls, `2_1_2<quarter><yy>_smc.xls`, one sheet per business day)
 *       under each sheet's Fecha Valor: the ask in bolivares per unit as the rate, and the bid, each recorded
 *       as imported by the admin. The whole file is stored in one transaction, or nothing. Importing the same
 *       file again changes nothing. A value the bank's home page stored for the same date and currency is
 *       kept (listed in `home_page_kept` where it differs) unless `overwrite=true` is sent (query or form
 *       field), and then the workbook's replaces it (`workbook_won`); a later fetch of the home page still
 *       restores the page's value for a date the page publishes. Sheets dated after today are skipped: future
 *       value dates come only from the home page. Send the file as the multipart/form-data field `file`, or
 *       as the raw body (with `?name=` for its name). At most 5 MiB (413 past it), 100 sheets, 200 rows a
 *       sheet; formulas are never evaluated. A file that is not such a workbook answers 400 and changes nothing.
 *     security: [{ bearerAuth: [] }]
 *     parameters:
 *       - $ref: "#/components/parameters/RateImportQuery.name"
 *       - $ref: "#/components/parameters/RateImportQuery.overwrite"
 *     requestBody:
 *       required: true
 *       content:
 *         multipart/form-data:
 *           schema: { $ref: "#/components/schemas/RateImportForm" }
 *         application/vnd.ms-excel:
 *           schema: { type: string, format: binary }
 *     responses:
 *       200:
 *         description: What the file held and what changed
 *         content:
 *           application/json:
 *             schema: { $ref: "#/components/schemas/ImportSummary" }
 *             example:
 *               file: 2_1_2d25_smc.xls
 *               overwrite: false
 *               sheets_read: 9
 *               dates_added: 8
 *               dates_changed: 1
 *               dates_unchanged: 0
 *               values_stored: 188
 *               first_date: "2025-10-02"
 *               last_date: "2025-10-14"
 *               currencies: [ANG, ARS, BOB, BRL, CAD, CLP, CNY, COP, CUC, DOP, EUR, INR, JPY, MXN, NIO, PEN, RUB, TRY, TTD, USD, UYU]
 *               sheets_skipped: []
 *               rows_skipped: []
 *               home_page_kept: [{ date: "2025-10-14", currency: USD, home_page: "197.24000000", workbook: "197.2456" }]
 *               workbook_won: []
 *       401: { $ref: "#/components/responses/Unauthorized" }
 *       403: { $ref: "#/components/responses/Forbidden" }
 *       413: { $ref: "#/components/responses/ContentTooLarge" }
 *       400: { $ref: "#/components/responses/BadRequest" }
 */
export const POST = withCors(
  route(async (request) => {
    const admin = await requireAdmin(request);
    return json(await importUploadedWorkbook(request, admin), { headers: { "Cache-Control": "no-store" } });
  }),
);

export const OPTIONS = corsPreflight(["POST"]);
