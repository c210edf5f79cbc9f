import { requireSession } from "@/lib/auth/guard";
import { mintAccessToken, revokeSession } from "@/lib/auth/tokens";
import { clientAddress } from "@/lib/http/client-address";
import { parseForm } from "@/lib/http/request";
import { json, route } from "@/lib/http/route";
import { tokenRequestSchema } from "@/lib/users/schemas";
import { authenticate } from "@/lib/users/service";

/**
 * @swagger
 * /users/token:
 *   post:
 *     tags: [Users]
 *     summary: Get a bearer token (OAuth2 password form)
 *     description: >
 *       Ten failed attempts for one email from one client address within 15 minutes answer 429 with
 *       Retry-After (the address is the connection's peer, or X-Forwarded-For from a TRUSTED_PROXIES peer).
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
 *       400: { $ref: "#/components/responses/BadRequest" }
 *       429: { $ref: "#/components/responses/TooManyRequests" }
 *       503: { $ref: "#/components/responses/ServiceUnavailable" }
 */
export const POST = route(async (request) => {
  const form = await parseForm(request, tokenRequestSchema);
  const user = await authenticate(form.username, form.password, clientAddress(request.headers));
  return json(await mintAccessToken(user), { headers: { "Cache-Control": "no-store" } });
});

/**
 * @swagger
 * /users/token:
 *   delete:
 *     tags: [Users]
 *     summary: Sign out (revoke the presented token)
 *     description: >
 *       Revokes the session of the bearer token (or session cookie) sent with the request: every copy of it is
 *       refused from now on. The dashboard's Sign out does the same through next-auth.
 *     security: [{ bearerAuth: [] }]
 *     responses:
 *       204: { description: The session is revoked }
 *       401: { $ref: "#/components/responses/Unauthorized" }
 */
export const DELETE = route(async (request) => {
  const session = await requireSession(request);
  await revokeSession(session.sid);
  return new Response(null, { status: 204 });
});
