import { gatewayPage } from "@/lib/gateway/pages";
import { resolveHost } from "@/lib/gateway/resolve";
import { prefersHtml } from "@/lib/http/negotiate";
import { route } from "@/lib/http/route";

export const dynamic = "force-dynamic";

/**
 * @swagger
 * /gateway/page:
 *   get:
 *     tags: [Builds]
 *     summary: The gateway's page for a preview name it does not proxy
 *     description: >
 *       What the gateway shows, under the preview's own name (its Host), when GET /gateway/resolve said not to
 *       proxy: a small HTML page for a browser, a problem otherwise. 404 no preview has the name; 410 its build
 *       expired, failed or was destroyed (with a link to the build's page on the dashboard); 503 with Retry-After
 *       while it is built or asleep; 400 for a Host no preview can have; 502 when the gateway found a running
 *       build's preview not answering (`unreachable`). Never a preview's content.
 *     parameters:
 *       - { in: query, name: unreachable, schema: { type: string }, description: "Set by the gateway when the preview did not answer" }
 *     responses:
 *       400: { $ref: "#/components/responses/BadRequest" }
 *       404: { $ref: "#/components/responses/NotFound" }
 *       410:
 *         description: The build behind the name ended; the detail links its page
 *         content:
 *           application/problem+json:
 *             schema: { $ref: "#/components/schemas/Problem" }
 *           text/html:
 *             schema: { type: string }
 *       502: { $ref: "#/components/responses/BadGateway" }
 *       503: { $ref: "#/components/responses/ServiceUnavailable" }
 */
export const GET = route(async (request) => {
  const verdict = await resolveHost(request.headers.get("host") ?? "");
  const html = prefersHtml(request);
  if (verdict.status !== 200) return gatewayPage(verdict, html);
  // A name that leads to a running build: its preview did not answer the gateway, or it started meanwhile.
  if (new URL(request.url).searchParams.has("unreachable"))
    return gatewayPage(
      { status: 502, buildId: verdict.buildId, detail: `The preview of build ${verdict.buildId} did not answer.` },
      html,
    );
  return gatewayPage(
    { status: 503, buildId: verdict.buildId, detail: `Build ${verdict.buildId} is starting.`, retryAfterSeconds: 1 },
    html,
  );
});
