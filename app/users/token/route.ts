import { mintAccessToken } from "@/lib/auth/tokens";
import { json, route } from "@/lib/http/route";
import { parseForm } from "@/lib/http/request";
import { tokenRequestSchema } from "@/lib/users/schemas";
import { authenticate } from "@/lib/users/service";

/**
 * @swagger
 * /users/token:
 *   post:
 *     tags: [Users]
 *     summary: Get a bearer token (OAuth2 password form)
 *     description: Ten failed attempts for one email within 15 minutes answer 429 with Retry-After.
 *     requestBody:
 *       required: true
 *       content:
 *         application/x-www-form-urlencoded:
 *           schema: { $ref: "#/components/schemas/TokenRequest" }
 *     responses:
 *       200:
 *         description: An access token
 *         content:
 *           application/json:
 *             schema: { $ref: "#/components/schemas/Token" }
 *       401: { $ref: "#/components/responses/Unauthorized" }
 *       422: { $ref: "#/components/responses/ValidationError" }
 *       429: { $ref: "#/components/responses/TooManyRequests" }
 */
export const POST = route(async (request) => {
  const form = await parseForm(request, tokenRequestSchema);
  const user = await authenticate(form.username, form.password);
  return json(await mintAccessToken(user), { headers: { "Cache-Control": "no-store" } });
});
