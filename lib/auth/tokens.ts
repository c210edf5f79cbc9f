import crypto from "node:crypto";
import { encode } from "next-auth/jwt";
import { getEnv } from "../server/env";
import type { PublicUser } from "../users/roles";
import { insertRevokedSession } from "./revocations";

/**
 * Every token carries a session id (`sid`) chosen at sign-in. next-auth re-encodes the browser's cookie on
 * every session read (each copy has a new `jti`), but the `sid` stays, so signing out revokes every copy of
 * the cookie at once: the guard refuses a token whose `sid` is in RevokedSession.
 */
export function newSessionId(): string {
  return crypto.randomUUID();
}

/**
 * The claim that marks a token minted by POST /users/token. next-auth re-issues a session cookie with a new
 * expiry on every session read; an API token sent as that cookie would be extended the same way and live for
 * ever, so a token with this claim is neither refreshed nor accepted as a cookie (lib/auth/options.ts,
 * lib/auth/guard.ts): it expires when it says.
 */
export const API_TOKEN_USE = "api";

/**
 * Mints an API access token. It is the same signed and encrypted JWT that next-auth keeps in the browser's
 * session cookie, so one verification path serves API clients and the dashboard; `use: "api"` tells them apart.
 */
export async function mintAccessToken(user: PublicUser) {
  const env = getEnv();
  const expiresIn = env.ACCESS_TOKEN_EXPIRE_MINUTES * 60;
  const accessToken = await encode({
    token: { sub: String(user.id), sid: newSessionId(), use: API_TOKEN_USE },
    secret: env.NEXTAUTH_SECRET,
    maxAge: expiresIn,
  });
  return { access_token: accessToken, token_type: "bearer" as const, expires_in: expiresIn };
}

/**
 * Signs a session out: its tokens are refused from now on. The row is kept for one session lifetime (plus
 * next-auth's clock tolerance), the longest any copy issued before the sign-out can live.
 */
export async function revokeSession(sid: string): Promise<void> {
  const lifetimeMs = getEnv().ACCESS_TOKEN_EXPIRE_MINUTES * 60_000 + 60_000;
  await insertRevokedSession(sid, new Date(Date.now() + lifetimeMs));
}
