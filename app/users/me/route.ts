import { requireUser } from "@/lib/auth/guard";
import { json, route } from "@/lib/http/route";
import { toUserView } from "@/lib/users/service";

/**
 * @swagger
 * /users/me:
 *   get:
 *     tags: [Users]
 *     summary: The signed-in user
 *     security: [{ bearerAuth: [] }]
 *     responses:
 *       200:
 *         description: The user behind the token
 *         content:
 *           application/json:
 *             schema: { $ref: "#/components/schemas/User" }
 *       401: { $ref: "#/components/responses/Unauthorized" }
 */
export const GET = route(async (request) => {
  const user = await requireUser(request);
  return json(toUserView(user), { headers: { "Cache-Control": "private, no-store" } });
});
