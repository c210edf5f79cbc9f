import { admitWithTicket } from "@/lib/gateway/admission";
import { admitQuerySchema } from "@/lib/gateway/schemas";
import { parseQuery } from "@/lib/http/request";
import { route } from "@/lib/http/route";

export const dynamic = "force-dynamic";

/**
 * @swagger
 * /gateway/admit:
 *   get:
 *     tags: [Builds]
 *     summary: A ticket becomes the gateway's cookie for a private preview's name
 *     description: >
 *       Reached through the gateway as `/__gateway/admit` on a preview's name (nginx sends `/__gateway/` paths to
 *       the app, never to the preview). A ticket from GET /gateway/ticket, signed for this name and not expired,
 *       sets the gateway's cookie for the name (HttpOnly, SameSite=Lax, Secure under https) and answers 303 to
 *       the path asked for; anything else 403.
 *     parameters:
 *       - $ref: "#/components/parameters/AdmitQuery.ticket"
 *       - $ref: "#/components/parameters/AdmitQuery.to"
 *     responses:
 *       303: { description: "Admitted: the gateway's cookie is set; back to the path asked for" }
 *       400: { $ref: "#/components/responses/BadRequest" }
 *       403: { $ref: "#/components/responses/Forbidden" }
 *       404: { $ref: "#/components/responses/NotFound" }
 */
export const GET = route(async (request) => {
  const { ticket, to } = parseQuery(request, admitQuerySchema);
  return admitWithTicket(request, ticket, to);
});
