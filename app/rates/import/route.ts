import { requireUser } from "@/lib/auth/guard";
import { corsPreflight, withCors } from "@/lib/http/cors";
import { json, route } from "@/lib/http/route";
import { importUploadedWorkbook } from "@/lib/rates/import";

/**
 * @swagger
 * /rates/import:
 *   post:
 *     tags: [Rates]
 *     summary: Import one of the central bank's reference-rate workbooks
 *     description: >
 *       Stores every currency of every sheet of a quarterly workbook of the Banco Central de Venezuela
 *       (Excel 97 .xls, `2_1_2<quarter><yy>_smc.xls`, one sheet per business day) under each sheet's Fecha
 *       Valor: the ask in bolivares per unit as the rate, and the bid. The whole file is stored in one
 *       transaction, or nothing. Importing the same file again changes nothing. Where an earlier home-page
 *       fetch stored another value for a date, the workbook's wins and `workbook_won` lists it. Send the file
 *       as the multipart/form-data field `file`, or as the raw body (with `?name=` for its name). At most
 *       5 MiB (413 past it), 100 sheets, 200 rows a sheet; formulas are never evaluated. A file that is not
 *       such a workbook answers 422 and changes nothing.
 *     security: [{ bearerAuth: [] }]
 *     parameters:
 *       - { in: query, name: name, required: false, description: "The file's name, for the summary, when the body is the raw file", schema: { type: string }, example: "2_1_2d25_smc.xls" }
 *     requestBody:
 *       required: true
 *       content:
 *         multipart/form-data:
 *           schema: { type: object, required: [file], properties: { file: { type: string, format: binary } } }
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
 *               sheets_read: 9
 *               dates_added: 9
 *               dates_changed: 0
 *               dates_unchanged: 0
 *               first_date: "2025-10-02"
 *               last_date: "2025-10-14"
 *               currencies: [ANG, ARS, BOB, BRL, CAD, CLP, CNY, COP, CUC, DOP, EUR, INR, JPY, MXN, NIO, PEN, RUB, TRY, TTD, USD, UYU]
 *               sheets_skipped: []
 *               rows_skipped: []
 *               workbook_won: [{ date: "2025-10-14", currency: USD, home_page: "197.24000000", workbook: "197.2456" }]
 *       401: { $ref: "#/components/responses/Unauthorized" }
 *       413: { $ref: "#/components/responses/ContentTooLarge" }
 *       422: { $ref: "#/components/responses/ValidationError" }
 */
export const POST = withCors(route(async (request) => {
  await requireUser(request);
  return json(await importUploadedWorkbook(request), { headers: { "Cache-Control": "no-store" } });
}));

export const OPTIONS = corsPreflight(["POST"]);
