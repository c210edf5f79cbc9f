import { ticketRedirect } from "@/lib/gateway/admission";
import { ticketQuerySchema } from "@/lib/gateway/schemas";
import { parseQuery } from "@/lib/http/request";
import { route } from "@/lib/http/route";

export const dynamic = "force-dynamic";

/**
 * @swagger
 * /gateway/ticket:
 *   get:
 *     tags: [Builds]
 *     summary: Admission to a private preview, for the signed-in user (a redirect)
 *     description: >
 *       Where the gateway sends a browser that visits a private preview (`preview_access: users`) without being
 *       admitted. Signed in to the dashboard: 303 to `/__gateway/admit` on the preview's name with a ticket signed
 *       for that name and good for a minute, which the gateway turns into its own cookie for the name. Not signed
 *       in: 303 to the dashboard's sign-in, which comes back here. The session cookie never leaves the dashboard's
 *       host. 400 for a name no preview can have.
 *     parameters:
 *       - $ref: "#/components/parameters/TicketQuery.name"
 *       - $ref: "#/components/parameters/TicketQuery.to"
 *     responses:
 *       303: { description: "To the preview's /__gateway/admit with a ticket, or to sign in first" }
 *       400: { $ref: "#/components/responses/BadRequest" }
 *       404: { $ref: "#/components/responses/NotFound" }
 */
export const GET = route(async (request) => {
  const { name, to } = parseQuery(request, ticketQuerySchema);
  return ticketRedirect(request, name, to);
});
