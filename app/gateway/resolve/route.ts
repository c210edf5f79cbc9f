import { bypassGuessesRetryAfter, noteWrongBypass } from "@/lib/gateway/bypass-guesses";
import { gatewayClient } from "@/lib/gateway/gateway-client";
import { credentialsOf, resolveHost } from "@/lib/gateway/resolve";
import { noteVisit } from "@/lib/gateway/visits";
import { cameFromTheGateway } from "@/lib/http/client-address";
import { HttpProblem } from "@/lib/http/problem";
import { json, route } from "@/lib/http/route";

export const dynamic = "force-dynamic";

/**
 * @swagger
 * /gateway/resolve:
 *   get:
 *     tags: [Builds]
 *     summary: Where the gateway sends a preview's name (nginx's auth_request)
 *     description: >
 *       Asked by the gateway (nginx, `npm run gateway`, deploy/nginx/previews.conf) for each preview name it
 *       serves, at most once a second per name: it reads the answer in `auth_request`'s terms. 200 with
 *       `X-Gateway-Upstream` (the `ip:port` of the build's preview, on the host that runs it) when the request is
 *       to be proxied there; 403 when it is not, with `X-Gateway-Status` saying why (404 no such name, 410 the
 *       build ended, 503 being built or asleep, 400 a Host no preview has, 401 a private preview that does not
 *       admit this visitor), and nginx then shows GET /gateway/page. The name is the request's Host as nginx
 *       received it, in `X-Gateway-Host`; the visitor's gateway cookie and X-Preview-Bypass header come in
 *       `X-Gateway-Cookie` and `X-Gateway-Bypass` (a private preview's verdict depends on them). A 200 counts as a
 *       visit of the build (the sleep policy's activity). Answered only to the gateway: a request from loopback
 *       (or one of TRUSTED_PROXIES) that no proxy forwarded; anything else gets 403. After 10 wrong
 *       X-Preview-Bypass secrets in a minute from one client (`X-Gateway-Client`, the address the gateway saw), that
 *       client's secrets are no longer checked: 403 with `X-Gateway-Status: 429` and `Retry-After`.
 *     parameters:
 *       - { in: header, name: X-Gateway-Host, required: true, schema: { type: string }, example: "feature-x--demo.preview.example.com" }
 *       - { in: header, name: X-Gateway-Cookie, schema: { type: string }, description: "The value of the gateway's cookie the visitor sent" }
 *       - { in: header, name: X-Gateway-Bypass, schema: { type: string }, description: "The X-Preview-Bypass header the visitor sent" }
 *       - { in: header, name: X-Gateway-Client, schema: { type: string }, description: "The visitor's address, as the gateway saw it" }
 *     responses:
 *       200:
 *         description: Proxy to this upstream
 *         headers:
 *           X-Gateway-Upstream: { schema: { type: string }, example: "127.0.0.1:18003" }
 *         content:
 *           application/json:
 *             schema: { $ref: "#/components/schemas/GatewayVerdict" }
 *       403:
 *         description: Do not proxy; X-Gateway-Status says what the page will say
 *         headers:
 *           X-Gateway-Status: { schema: { type: string }, example: "410" }
 *           Retry-After: { schema: { type: integer }, description: "With X-Gateway-Status 429: seconds until this client may try a bypass secret again" }
 *         content:
 *           application/json:
 *             schema: { $ref: "#/components/schemas/GatewayVerdict" }
 */
export const GET = route(async (request) => {
  if (!cameFromTheGateway(request.headers))
    throw new HttpProblem(403, "Forbidden", "GET /gateway/resolve answers the previews' gateway only.");
  const credentials = credentialsOf(request);
  const client = gatewayClient(request.headers);
  if (credentials.bypass) {
    const retryAfter = bypassGuessesRetryAfter(client);
    if (retryAfter !== null) {
      noteWrongBypass(client);
      return json(
        { status: 429, upstream: null, build_id: null, detail: "Too many wrong X-Preview-Bypass secrets." },
        {
          status: 403,
          headers: { "Cache-Control": "no-store", "X-Gateway-Status": "429", "Retry-After": String(retryAfter) },
        },
      );
    }
  }
  const verdict = await resolveHost(request.headers.get("x-gateway-host") ?? "", credentials);
  // A private preview that refused a visitor with a bypass secret: the secret was wrong.
  if (credentials.bypass && verdict.status === 401) noteWrongBypass(client);
  const headers: Record<string, string> = { "Cache-Control": "no-store", "X-Gateway-Status": String(verdict.status) };
  if (verdict.status === 200) {
    headers["X-Gateway-Upstream"] = verdict.upstream;
    noteVisit(verdict.buildId);
  }
  return json(
    {
      status: verdict.status,
      upstream: verdict.status === 200 ? verdict.upstream : null,
      build_id: "buildId" in verdict ? verdict.buildId : null,
      detail: verdict.status === 200 ? null : verdict.detail,
    },
    { status: verdict.status === 200 ? 200 : 403, headers },
  );
});
