import { optionalUser } from "@/lib/auth/guard";
import { parseJson } from "@/lib/http/request";
import { json, route } from "@/lib/http/route";
import { registerUserSchema } from "@/lib/users/schemas";
import { assertCanRegister, registerUser } from "@/lib/users/service";

/**
 * @swagger
 * /users/:
 *   post:
 *     tags: [Users]
 *     summary: Register a user
 *     description: >
 *       The first user becomes an admin. With REGISTRATION=closed only a signed-in admin may create users
 *       (401 without credentials, 403 for a non-admin); the first user of an empty database may always register.
 *     requestBody:
 *       required: true
 *       content:
 *         application/json:
 *           schema: { $ref: "#/components/schemas/RegisterUser" }
 *     responses:
 *       201:
 *         description: The new user
 *         content:
 *           application/json:
 *             schema: { $ref: "#/components/schemas/User" }
 *       401: { $ref: "#/components/responses/Unauthorized" }
 *       403: { $ref: "#/components/responses/Forbidden" }
 *       409: { $ref: "#/components/responses/Conflict" }
 *       415: { $ref: "#/components/responses/UnsupportedMediaType" }
 *       400: { $ref: "#/components/responses/BadRequest" }
 */
export const POST = route(async (request) => {
  await assertCanRegister(() => optionalUser(request));
  const input = await parseJson(request, registerUserSchema);
  return json(await registerUser(input), { status: 201 });
});
