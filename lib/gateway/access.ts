import crypto from "node:crypto";
import { findSessionUser } from "../auth/revocations";
import { type GatewayConfig, getBuildsConfig, type RepositoryConfig } from "../builds/config";
import { previewAccessFor } from "../builds/preview-access";
import { getEnv } from "../server/env";
import { gatewayCookieName } from "./nginx-config";
import { findLiveShare } from "./shares";

/**
 * Who may open a preview through the gateway. A repository's `preview_access` is `public` (anyone with the
 * address) or `users` (people signed in to the dashboard); a build's access is its own choice, else its first
 * repository's, the one its names carry (lib/builds/preview-access.ts). A private preview admits:
 * - a visitor holding the gateway's cookie for that name: signed here, host-only, HttpOnly, Secure under https,
 *   SameSite=Lax. A signed-in user gets it through a ticket: the dashboard (where the session cookie lives) signs a
 *   ticket valid for a minute and for one name, hands it over a redirect to GET /__gateway/admit on the preview's
 *   name, which sets the cookie. A share link's holder gets it from GET /__gateway/share/<secret>: a link that follows
 *   a branch admits to whichever build of that branch its name leads to, one of a build to that build. The cookie names
 *   its grant (a user's session, a share) and is checked against the database at every lookup: signing out of the
 *   dashboard, deactivating the user or revoking the share ends it within the gateway's one-second cache.
 * - an automated test sending the repository's bypass secret in X-Preview-Bypass (compared in constant time).
 * nginx removes the gateway's cookie and X-Preview-Bypass before a request reaches the preview, and the ticket and
 * the share secret travel only on /__gateway/ paths, which nginx sends to the app, never to the preview.
 */
export type Grant = { kind: "user"; userId: number; sid: string } | { kind: "share"; shareId: string };

export interface Credentials {
  /** The gateway cookie's value, as nginx extracted it from the visitor's Cookie header. */
  cookie?: string | null;
  /** The X-Preview-Bypass header. */
  bypass?: string | null;
}

export type AccessCheck =
  | { admitted: true; grant: Grant | "public" | "bypass" }
  | { admitted: false; detail: string; badCookie: boolean };

/** How long a ticket handed over a redirect stays good. */
export const TICKET_SECONDS = 60;
/** How long the gateway's cookie of a signed-in user lasts (a share's lasts until the share expires, if sooner). */
export const USER_COOKIE_SECONDS = 12 * 3600;

function repositoryOf(alias: string): RepositoryConfig | undefined {
  return getBuildsConfig().repositories.find((candidate) => candidate.alias === alias);
}

/** The build a visitor asks for: its first repository at its ref, and its own choice of access (null: none). */
export interface VisitedBuild {
  buildId: string;
  alias: string | null;
  ref: string | null;
  previewAccess: string | null;
}

/** Whether this visitor may open the preview of this build at the name `label`. */
export async function checkAccess(build: VisitedBuild, label: string, credentials: Credentials): Promise<AccessCheck> {
  if (previewAccessFor(build.previewAccess, build.alias) === "public") return { admitted: true, grant: "public" };
  const repository = build.alias === null ? undefined : repositoryOf(build.alias);
  const bypass = credentials.bypass;
  if (bypass) {
    if (repository?.previewBypassSecret && sameSecret(bypass, repository.previewBypassSecret))
      return { admitted: true, grant: "bypass" };
    return {
      admitted: false,
      badCookie: false,
      detail: `The X-Preview-Bypass header does not hold the bypass secret of build ${build.buildId}'s repository.`,
    };
  }
  const grant = credentials.cookie ? readPass(credentials.cookie, "cookie", label) : null;
  if (grant && (await grantHolds(grant, build))) return { admitted: true, grant };
  return {
    admitted: false,
    badCookie: Boolean(credentials.cookie),
    detail: `The preview of build ${build.buildId} is open to people signed in to the dashboard only.`,
  };
}

/** Whether the gateway's cookie for the name `label` shows a user signed in to the dashboard (not a share's holder). */
export async function visitorIsSignedIn(label: string, credentials: Credentials): Promise<boolean> {
  const grant = credentials.cookie ? readPass(credentials.cookie, "cookie", label) : null;
  return grant?.kind === "user" && (await sessionHolds(grant));
}

async function sessionHolds(grant: Grant & { kind: "user" }): Promise<boolean> {
  const { revoked, user } = await findSessionUser(grant.sid, grant.userId);
  return !revoked && user !== null && user.isActive;
}

async function grantHolds(grant: Grant, build: VisitedBuild): Promise<boolean> {
  if (grant.kind === "share") {
    const share = await findLiveShare(grant.shareId);
    if (share?.scope === "branch") return share.alias === build.alias && share.ref === build.ref;
    return share?.buildId === build.buildId;
  }
  return sessionHolds(grant);
}

function sameSecret(given: string, expected: string): boolean {
  // Hashes first: equal lengths for timingSafeEqual, and no length told by the time taken.
  const digest = (text: string) => crypto.createHash("sha256").update(text).digest();
  return crypto.timingSafeEqual(digest(given), digest(expected));
}

type Purpose = "ticket" | "cookie";

/** The key passes are signed with: derived from NEXTAUTH_SECRET, which every instance shares. */
function passKey(): Buffer {
  return crypto.createHmac("sha256", getEnv().NEXTAUTH_SECRET).update("preview-gateway-pass").digest();
}

function mac(purpose: Purpose, payload: string): string {
  return crypto.createHmac("sha256", passKey()).update(`${purpose}\n${payload}`).digest("base64url");
}

/** A signed pass (a ticket or a cookie's value) for one preview name, until `expiresAt` (seconds since the epoch). */
export function signPass(purpose: Purpose, label: string, grant: Grant, expiresAt: number): string {
  const g = grant.kind === "user" ? ["u", grant.userId, grant.sid] : ["s", grant.shareId];
  const payload = Buffer.from(JSON.stringify({ h: label, g, e: expiresAt })).toString("base64url");
  return `${payload}.${mac(purpose, payload)}`;
}

/** The grant of a pass signed for this purpose and name that has not expired; null for anything else. */
export function readPass(pass: string, purpose: Purpose, label: string, now = Date.now()): Grant | null {
  const [payload, signature, extra] = pass.split(".");
  if (!payload || !signature || extra !== undefined) return null;
  const expected = Buffer.from(mac(purpose, payload));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) return null;
  let body: { h?: unknown; g?: unknown; e?: unknown };
  try {
    body = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
  } catch {
    return null;
  }
  if (body.h !== label || typeof body.e !== "number" || body.e * 1000 <= now || !Array.isArray(body.g)) return null;
  const [kind, a, b] = body.g as unknown[];
  if (kind === "u" && typeof a === "number" && typeof b === "string") return { kind: "user", userId: a, sid: b };
  if (kind === "s" && typeof a === "string") return { kind: "share", shareId: a };
  return null;
}

/** The Set-Cookie of the gateway's cookie holding this pass (or clearing it: `null`). */
export function gatewayCookie(gateway: GatewayConfig, pass: string | null, maxAgeSeconds = 0): string {
  const parts = [
    `${gatewayCookieName(gateway.scheme)}=${pass ?? ""}`,
    "Path=/",
    `Max-Age=${pass === null ? 0 : Math.max(0, Math.floor(maxAgeSeconds))}`,
    "HttpOnly",
    "SameSite=Lax",
  ];
  if (gateway.scheme === "https") parts.push("Secure");
  return parts.join("; ");
}

/** The dashboard's address, where people sign in; null when neither PUBLIC_URL nor NEXTAUTH_URL says it. */
export function dashboardUrl(): string | null {
  const { PUBLIC_URL, NEXTAUTH_URL } = getEnv();
  const base = PUBLIC_URL ?? NEXTAUTH_URL;
  return base ? base.replace(/\/+$/, "") : null;
}

/** A control character (C0, DEL, C1): browsers drop some of them from a URL (a TAB, a line break) and keep others. */
const CONTROL_CHARACTER = /\p{Cc}/u;

/**
 * A path to go back to on the preview whose origin is `origin` (a name's URL): a path of that site, never another
 * site's address. The path is judged as a browser reads it: parsed against the origin, it must stay on the origin.
 * Before that, whatever a browser reads differently from a URL parser (a control character, which browsers strip,
 * so "/<TAB>/evil.example" becomes "//evil.example"; a backslash, which they take for a slash) is refused outright.
 * Anything refused is "/".
 */
export function safeReturnPath(path: string | null | undefined, origin: string): string {
  if (!path?.startsWith("/") || path.length > 2048) return "/";
  if (CONTROL_CHARACTER.test(path) || path.includes("\\")) return "/";
  let target: URL;
  try {
    target = new URL(path, origin);
  } catch {
    return "/";
  }
  return target.origin === new URL(origin).origin ? path : "/";
}
