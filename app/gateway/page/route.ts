import { admissionAnswer, signInToSeeUrl } from "@/lib/gateway/admission";
import { bypassGuessesRetryAfter, GUESSES_A_MINUTE } from "@/lib/gateway/bypass-guesses";
import { gatewayClient } from "@/lib/gateway/gateway-client";
import { liveNamesNear } from "@/lib/gateway/live-names";
import { say } from "@/lib/gateway/messages";
import { gatewayPage, type PageVerdict, pageLocale } from "@/lib/gateway/pages";
import { credentialsOf, resolveHost, type Verdict } from "@/lib/gateway/resolve";
import { wakeOnVisit } from "@/lib/gateway/wake-on-visit";
import { clientAddress } from "@/lib/http/client-address";
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
 *       proxy: a small HTML page for a browser, a problem otherwise. 404 no preview has the name: it lists the
 *       live names of the repository the name asks for, nearest first (public previews to anyone, private ones
 *       to a visitor signed in through the gateway, whom the page offers to sign in otherwise); 410 its build
 *       expired, failed or was destroyed (with a link to the build's page on the dashboard); 503 with Retry-After
 *       while it is built; for a sleeping build, the visit wakes it (a page that reloads until the preview
 *       answers, 503 with Retry-After), unless the visitor's address has woken gateway.wakes_per_hour previews
 *       this hour (429), or after 10 wrong X-Preview-Bypass secrets in a minute from the visitor's address (429 with
 *       Retry-After, whatever the secret); 400 for a Host no preview can have; 502 when the gateway found a running
 *       build's preview not answering (`unreachable`). A private preview that does not admit the visitor: a
 *       browser is sent (303) to the dashboard's GET /gateway/ticket to sign in and come back, anything else gets
 *       401. Never a preview's content.
 *     parameters:
 *       - { in: query, name: unreachable, schema: { type: string }, description: "Set by the gateway when the preview did not answer" }
 *     responses:
 *       303: { description: "A private preview: to the dashboard's GET /gateway/ticket, to sign in and come back" }
 *       400: { $ref: "#/components/responses/BadRequest" }
 *       401: { $ref: "#/components/responses/Unauthorized" }
 *       404: { $ref: "#/components/responses/NotFound" }
 *       410:
 *         description: The build behind the name ended; the detail links its page
 *         content:
 *           application/problem+json:
 *             schema: { $ref: "#/components/schemas/Problem" }
 *           text/html:
 *             schema: { type: string }
 *       429: { $ref: "#/components/responses/TooManyRequests" }
 *       502: { $ref: "#/components/responses/BadGateway" }
 *       503: { $ref: "#/components/responses/ServiceUnavailable" }
 */
export const GET = route(async (request) => {
  const credentials = credentialsOf(request);
  const locale = pageLocale(request);
  // The resolver counted this request's wrong secret already, and refused it if it was one too many.
  const retryAfter = credentials.bypass
    ? bypassGuessesRetryAfter(gatewayClient(request.headers), GUESSES_A_MINUTE + 1)
    : null;
  if (retryAfter !== null)
    return gatewayPage({ status: 429, ...say("tooManyGuesses"), retryAfterSeconds: retryAfter }, locale);
  const verdict = await resolveHost(request.headers.get("host") ?? "", credentials);
  if (verdict.status === 401) return admissionAnswer(verdict, locale, request.headers.get("x-gateway-uri"));
  if (verdict.status === 503 && verdict.asleep) return gatewayPage(await visitAsleep(verdict, request), locale);
  if (verdict.status === 404) {
    const host = request.headers.get("host") ?? "";
    const liveNames = await liveNamesNear(host, credentials);
    return gatewayPage({ ...verdict, liveNames, signInUrl: liveNames.signedIn ? null : signInToSeeUrl(host) }, locale);
  }
  if (verdict.status !== 200) return gatewayPage(verdict, locale);
  // A name that leads to a running build: its preview did not answer the gateway, or it started meanwhile.
  if (new URL(request.url).searchParams.has("unreachable"))
    return gatewayPage(
      { status: 502, buildId: verdict.buildId, ...say("unreachable", { id: verdict.buildId }) },
      locale,
    );
  return gatewayPage(
    { status: 503, buildId: verdict.buildId, ...say("starting", { id: verdict.buildId }), retryAfterSeconds: 1 },
    locale,
  );
});

/** A visit to a sleeping preview wakes it, within the visitor's wakes an hour. */
async function visitAsleep(verdict: Verdict & { status: 503 }, request: Request): Promise<PageVerdict> {
  const { buildId } = verdict;
  switch (await wakeOnVisit({ id: buildId, host: verdict.asleep?.host ?? null }, clientAddress(request.headers))) {
    case "waking":
      return {
        status: 503,
        buildId,
        waking: true,
        retryAfterSeconds: 2,
        ...say("waking", { id: buildId }),
      };
    case "limited":
      return {
        status: 429,
        buildId,
        retryAfterSeconds: 3600,
        ...say("limited", { id: buildId }),
      };
    case "unreachable":
      return { ...verdict, ...say("wakeRefused", { id: buildId }) };
  }
}
