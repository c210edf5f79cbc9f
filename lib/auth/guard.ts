import { NextRequest } from "next/server";
import { decode, getToken } from "next-auth/jwt";
import { forbidden, HttpProblem, unauthorized } from "../http/problem";
import { assertSameOriginWrite } from "../http/same-origin";
import { getEnv } from "../server/env";
import { type PublicUser, withEffectiveRole } from "../users/roles";
import { sessionCookieName } from "./cookies";
import { findSessionUser } from "./revocations";
import { API_TOKEN_USE } from "./tokens";

export interface Session {
  user: PublicUser;
  /** The session id every token of this sign-in carries (lib/auth/tokens.ts). */
  sid: string;
  /** How the request authenticated: a cookie-authenticated write must pass the same-origin check. */
  via: "bearer" | "cookie";
}

/**
 * The session behind a request. An `Authorization` header wins over a cookie (a client that sends one means
 * it); the scheme is case-insensitive (RFC 9110 11.1). Verifies the token's encryption and expiry, that its
 * session was not signed out, and that the user still exists and is active; throws 401 otherwise. A write
 * authenticated by the cookie must come from the app's own origin (403 otherwise, lib/http/same-origin.ts).
 * Returns null when the request carries no credentials at all.
 */
export async function readSession(request: Request): Promise<Session | null> {
  const header = request.headers.get("authorization");
  let raw: string | null;
  let via: Session["via"];
  if (header !== null) {
    const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
    if (!match) throw unauthorized("The Authorization header must be 'Bearer <token>'.");
    raw = match[1];
    via = "bearer";
  } else {
    raw = await readSessionCookie(request);
    if (raw === null) return null;
    via = "cookie";
  }
  const secret = getEnv().NEXTAUTH_SECRET;
  const token = await decode({ token: raw, secret }).catch(() => null);
  if (!token || typeof token.sub !== "string" || typeof token.sid !== "string") {
    throw unauthorized("The token is invalid or has expired.");
  }
  if (via === "cookie" && token.use === API_TOKEN_USE) {
    throw unauthorized("An API token goes in the Authorization header (Bearer), not in the session cookie.");
  }
  const userId = Number(token.sub);
  if (!Number.isSafeInteger(userId)) throw unauthorized("The token is invalid or has expired.");
  const { revoked, user: stored } = await findSessionUser(token.sid, userId);
  if (revoked) throw unauthorized("The token's session was signed out.");
  if (!stored) throw unauthorized("The token's user no longer exists.");
  if (!stored.isActive) throw unauthorized("The token's user is inactive.");
  if (via === "cookie") assertSameOriginWrite(request);
  return { user: withEffectiveRole(stored), sid: token.sid, via };
}

/** The session's raw cookie value (next-auth splits long values into `.0`, `.1` chunks; getToken joins them). */
async function readSessionCookie(request: Request): Promise<string | null> {
  const cookie = request.headers.get("cookie");
  if (!cookie) return null;
  const cookies = new NextRequest(new URL("http://localhost/"), { headers: { cookie } }).cookies;
  const value = await getToken({ req: { cookies, headers: {} } as never, cookieName: sessionCookieName(), raw: true });
  return value || null;
}

/** The user behind a request; 401 without credentials. */
export async function requireUser(request: Request): Promise<PublicUser> {
  return (await requireSession(request)).user;
}

export async function requireSession(request: Request): Promise<Session> {
  const session = await readSession(request);
  if (!session) {
    throw unauthorized("Authentication required: send 'Authorization: Bearer <token>' or sign in.");
  }
  return session;
}

/** The signed-in user if there is one; bad credentials still answer 401 rather than counting as anonymous. */
export async function optionalUser(request: Request): Promise<PublicUser | null> {
  return (await readSession(request))?.user ?? null;
}

/**
 * Who is asking, for a read that anyone may make: the signed-in user, or null without credentials or with
 * credentials that no longer hold (an expired or signed-out session must not make a public read fail).
 */
export async function viewerOf(request: Request): Promise<PublicUser | null> {
  try {
    return (await readSession(request))?.user ?? null;
  } catch (error) {
    if (error instanceof HttpProblem && error.status === 401) return null;
    throw error;
  }
}

export async function requireAdmin(request: Request): Promise<PublicUser> {
  const user = await requireUser(request);
  if (user.role !== "admin") throw forbidden("Only admins may do this.");
  return user;
}
