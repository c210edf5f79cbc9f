import { BUILD_ERRORS_PATH } from "@/components/builds/console-path";
import { viewerOf } from "@/lib/auth/guard";
import { listBuildErrors } from "@/lib/builds/build-errors";
import { listBuildErrorsQuerySchema } from "@/lib/builds/schemas";
import { prefersHtml } from "@/lib/http/negotiate";
import { parseKnownQuery } from "@/lib/http/request";
import { json, route } from "@/lib/http/route";

/**
 * @swagger
 * /builds/errors:
 *   get:
 *     tags: [Builds]
 *     summary: Errors found in builds' logs, grouped across builds
 *     description: >
 *       The errors the log checks (`log_checks` of the builds configuration) found in the stages' logs, each
 *       cleaned of what differs between runs (numbers, line numbers, hex ids, dates, pids, the build's folder) and
 *       grouped by the fingerprint of the cleaned text, the most recently seen first: how many builds and which
 *       branches logged it, when first and last, and whether a base branch has it too. Public, but the errors of a
 *       private build (its first repository's preview_access is `users`) count only for signed-in requesters (a
 *       bearer token or a session). A browser (Accept preferring text/html) is sent to the errors page
 *       (303 to `/build-errors`).
 *     parameters:
 *       - $ref: "#/components/parameters/ListBuildErrorsQuery.limit"
 *     responses:
 *       200:
 *         description: The errors
 *         content:
 *           application/json:
 *             schema: { $ref: "#/components/schemas/BuildErrorList" }
 *       303:
 *         description: For a browser, the errors page
 *         headers:
 *           Location: { schema: { type: string }, example: "/build-errors" }
 *       400: { $ref: "#/components/responses/BadRequest" }
 */
export const GET = route(async (request) => {
  if (prefersHtml(request)) {
    return new Response(null, {
      status: 303,
      headers: { Location: BUILD_ERRORS_PATH, Vary: "Accept", "Cache-Control": "no-store" },
    });
  }
  const query = parseKnownQuery(request, listBuildErrorsQuerySchema);
  const viewer = await viewerOf(request);
  return json(await listBuildErrors(query, viewer !== null), { headers: { "Cache-Control": "no-store" } });
});
