import { requireAdmin } from "@/lib/auth/guard";
import { parseJson, parseParams } from "@/lib/http/request";
import { json, route } from "@/lib/http/route";
import { updateUserSchema, userIdParamsSchema } from "@/lib/users/schemas";
import { setUserRole } from "@/lib/users/service";

type Context = { params: Promise<{ user_id: string }> };

/**
 * @swagger
 * /users/{user_id}:
 *   patch:
 *     tags: [Users]
 *     summary: Change another user's role (admins only)
 *     description: >
 *       An admin makes another user an admin, or a plain user again. Admin comes only from the first user,
 *       this call by an existing admin, or `npm run users:admin -- EMAIL` on the server (and ADMIN_EMAILS with
 *       REGISTRATION=closed), never from a self-registration. 403 for anyone but an admin; 409 for one's own
 *       role; 404 for an unknown user.
 *     security: [{ bearerAuth: [] }]
 *     parameters:
 *       - $ref: "#/components/parameters/UserIdParams.user_id"
 *     requestBody:
 *       required: true
 *       content:
 *         application/json:
 *           schema: { $ref: "#/components/schemas/UpdateUser" }
 *     responses:
 *       200:
 *         description: The user, with the new role
 *         content:
 *           application/json:
 *             schema: { $ref: "#/components/schemas/User" }
 *       401: { $ref: "#/components/responses/Unauthorized" }
 *       403: { $ref: "#/components/responses/Forbidden" }
 *       404: { $ref: "#/components/responses/NotFound" }
 *       409: { $ref: "#/components/responses/Conflict" }
 *       415: { $ref: "#/components/responses/UnsupportedMediaType" }
 *       400: { $ref: "#/components/responses/BadRequest" }
 */
export const PATCH = route<Context>(async (request, { params }) => {
  const admin = await requireAdmin(request);
  const { user_id } = parseParams(await params, userIdParamsSchema);
  const { role } = await parseJson(request, updateUserSchema);
  return json(await setUserRole(admin, user_id, role), { headers: { "Cache-Control": "no-store" } });
});
