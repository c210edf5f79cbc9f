import type { Locale } from "../../i18n/locale";
import { readSession } from "../auth/guard";
import { type GatewayConfig, getBuildsConfig } from "../builds/config";
import { nameUrl, readHost } from "../builds/preview-names";
import { badRequest, HttpProblem, notFound } from "../http/problem";
import {
  dashboardUrl,
  gatewayCookie,
  readPass,
  safeReturnPath,
  signPass,
  TICKET_SECONDS,
  USER_COOKIE_SECONDS,
} from "./access";
import { say } from "./messages";
import { gatewayPage, pageLocale } from "./pages";
import type { Verdict } from "./resolve";
import { findShareBySecret, shareOpensAt } from "./shares";

/**
 * The round trip that admits a signed-in user to a private preview, and the share link's admission
 * (lib/gateway/access.ts says who is admitted). The session cookie lives on the dashboard's host only, and a
 * preview's host must never receive it, so the two hosts speak through redirects:
 * 1. A browser visits a private preview without the gateway's cookie: the gateway's page answers 303 to the
 *    dashboard's GET /gateway/ticket?name=<label>&to=<path>.
 * 2. The dashboard: not signed in, 303 to the sign-in dialog, which comes back here once signed in; signed in,
 *    303 to GET /__gateway/admit?ticket=...&to=<path> on the preview's name, with a ticket signed for that name
 *    and good for a minute.
 * 3. The gateway sends /__gateway/ paths to the app (never to the preview): the ticket is checked, the gateway's
 *    cookie set for the name, and the browser sent back to the path it asked for.
 */
const NO_REFERRER = { "Referrer-Policy": "no-referrer", "Cache-Control": "no-store" };

function gatewayOrThrow(): GatewayConfig {
  const gateway = getBuildsConfig().gateway;
  if (!gateway) throw notFound("This service has no gateway: previews are reached at their port.");
  return gateway;
}

function redirect(location: string, headers: Record<string, string> = {}): Response {
  return new Response(null, { status: 303, headers: { ...NO_REFERRER, ...headers, Location: location } });
}

/** A visitor a private preview does not admit: a browser goes to sign in and back, a program gets 401. */
export function admissionAnswer(
  verdict: Verdict & { status: 401 },
  locale: Locale | null,
  returnPath: string | null,
): Response {
  const gateway = gatewayOrThrow();
  const clear: Record<string, string> = verdict.badCookie ? { "Set-Cookie": gatewayCookie(gateway, null) } : {};
  const dashboard = dashboardUrl();
  if (locale && dashboard) {
    const origin = nameUrl(gateway, `${verdict.label}.${gateway.domain}`);
    const query = new URLSearchParams({ name: verdict.label, to: safeReturnPath(returnPath, origin) });
    return redirect(`${dashboard}/gateway/ticket?${query}`, clear);
  }
  const where = dashboard ? `sign in at ${dashboard}/ and open it again` : "sign in to the dashboard and open it again";
  return gatewayPage(
    {
      ...verdict,
      detail: `${verdict.detail} In a browser, ${where}; an automated test sends its repository's bypass secret in X-Preview-Bypass.`,
    },
    locale,
    clear,
  );
}

/** Where a visitor of a name no preview has signs in and comes back to it, or null where there is no way to. */
export function signInToSeeUrl(host: string): string | null {
  const gateway = getBuildsConfig().gateway;
  const dashboard = dashboardUrl();
  const read = gateway ? readHost(gateway, host) : null;
  if (!dashboard || (read?.kind !== "build" && read?.kind !== "ref")) return null;
  return `${dashboard}/gateway/ticket?${new URLSearchParams({ name: read.label, to: "/" })}`;
}

/** Step 2, on the dashboard: a ticket for the signed-in user, or the way to sign in first. */
export async function ticketRedirect(request: Request, name: string, to: string | undefined): Promise<Response> {
  const gateway = gatewayOrThrow();
  const host = `${name}.${gateway.domain}`;
  const kind = readHost(gateway, host).kind;
  if (kind !== "build" && kind !== "ref") throw badRequest(`${host} is not a preview's name.`);
  const session = await readSession(request).catch((error) => {
    if (error instanceof HttpProblem && error.status === 401) return null;
    throw error;
  });
  const url = new URL(request.url);
  if (!session) return redirect(`/?${new URLSearchParams({ "sign-in": `${url.pathname}${url.search}` })}`);
  const grant = { kind: "user" as const, userId: session.user.id, sid: session.sid };
  const ticket = signPass("ticket", name, grant, Math.floor(Date.now() / 1000) + TICKET_SECONDS);
  const query = new URLSearchParams({ ticket, to: safeReturnPath(to, nameUrl(gateway, host)) });
  return redirect(`${nameUrl(gateway, host)}__gateway/admit?${query}`);
}

/** The label of the preview name a request on the gateway came for (its Host), or a 400. */
function labelOf(request: Request, gateway: GatewayConfig): { label: string; buildId: string | null } {
  const read = readHost(gateway, request.headers.get("host") ?? "");
  if (read.kind === "build") return { label: read.label, buildId: read.buildId };
  if (read.kind === "ref") return { label: read.label, buildId: null };
  throw badRequest("This address is not a preview's name.");
}

/** Step 3, on the preview's name: the ticket becomes the gateway's cookie for that name. */
export function admitWithTicket(request: Request, ticket: string | undefined, to: string | undefined): Response {
  const gateway = gatewayOrThrow();
  const { label } = labelOf(request, gateway);
  const grant = ticket ? readPass(ticket, "ticket", label) : null;
  if (!grant) return gatewayPage({ status: 403, ...say("badTicket") }, pageLocale(request), NO_REFERRER);
  const expiresAt = Math.floor(Date.now() / 1000) + USER_COOKIE_SECONDS;
  const cookie = gatewayCookie(gateway, signPass("cookie", label, grant, expiresAt), USER_COOKIE_SECONDS);
  const origin = nameUrl(gateway, `${label}.${gateway.domain}`);
  return redirect(safeReturnPath(to, origin), { "Set-Cookie": cookie });
}

/**
 * A share link opened: the gateway's cookie for the name it was made for (the build's, or its branch's), naming
 * the share, until the share expires.
 */
export async function admitWithShare(request: Request, secret: string): Promise<Response> {
  const gateway = gatewayOrThrow();
  const { label } = labelOf(request, gateway);
  const share = await findShareBySecret(secret);
  if (!share || !(await shareOpensAt(share, label)))
    return gatewayPage({ status: 404, ...say("badShare") }, pageLocale(request), NO_REFERRER);
  const seconds = Math.min(USER_COOKIE_SECONDS, Math.floor((share.expiresAt.getTime() - Date.now()) / 1000));
  const pass = signPass("cookie", label, { kind: "share", shareId: share.id }, Math.floor(Date.now() / 1000) + seconds);
  return redirect("/", { "Set-Cookie": gatewayCookie(gateway, pass, seconds) });
}
