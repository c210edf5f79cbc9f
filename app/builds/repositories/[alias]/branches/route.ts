import { requireUser } from "@/lib/auth/guard";
import { branchQuerySchema, hookParamsSchema } from "@/lib/builds/schemas";
import { listRepositoryBranches } from "@/lib/builds/service";
import { parseParams, parseQuery } from "@/lib/http/request";
import { json, route } from "@/lib/http/route";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ alias: string }> };

/**
 * @swagger
 * /builds/repositories/{alias}/branches:
 *   get:
 *     tags: [Builds]
 *     summary: A repository's branches, to choose a build's ref
 *     description: >
 *       The branches of a configured repository as its mirror has them, fetched from the repository first (as POST
 *       /builds does), so a branch pushed a moment ago is there; the last fetched ones when the repository cannot
 *       be reached now. The default ref first, then the branches whose name starts with `q`, then the others
 *       holding `q`, by name. What the build form offers as a ref is typed (any branch, tag or commit may still be
 *       asked for). For signed-in users. 503 while the repository's mirror cannot be read.
 *     security: [{ bearerAuth: [] }]
 *     parameters:
 *       - $ref: "#/components/parameters/HookParams.alias"
 *       - $ref: "#/components/parameters/BranchQuery.q"
 *       - $ref: "#/components/parameters/BranchQuery.limit"
 *     responses:
 *       200:
 *         description: The branches
 *         content:
 *           application/json:
 *             schema: { $ref: "#/components/schemas/BranchList" }
 *       400: { $ref: "#/components/responses/BadRequest" }
 *       401: { $ref: "#/components/responses/Unauthorized" }
 *       404: { $ref: "#/components/responses/NotFound" }
 *       503: { $ref: "#/components/responses/ServiceUnavailable" }
 */
export const GET = route<Context>(async (request, { params }) => {
  await requireUser(request);
  const { alias } = parseParams(await params, hookParamsSchema);
  return json(await listRepositoryBranches(alias, parseQuery(request, branchQuerySchema)), {
    headers: { "Cache-Control": "no-store" },
  });
});
