import { json, route } from "@/lib/http/route";
import { parseJson } from "@/lib/http/request";
import { registerUserSchema } from "@/lib/users/schemas";
import { registerUser } from "@/lib/users/service";

/**
 * @swagger
 * /users/:
 *   post:
 *     tags: [Users]
 *     summary: Register a user
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
 *       409: { $ref: "#/components/responses/Conflict" }
 *       422: { $ref: "#/components/responses/ValidationError" }
 */
export const POST = route(async (request) => {
  const input = await parseJson(request, registerUserSchema);
  return json(await registerUser(input), { status: 201 });
});
