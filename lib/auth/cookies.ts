import { getEnv } from "../server/env";

/**
 * Under HTTPS (NEXTAUTH_URL https://...) the session cookie is a `__Host-` cookie: Secure, Path=/ and no
 * Domain, so no other host (a build preview on a sibling name) can set or overwrite it. Plain HTTP keeps
 * next-auth's usual name, since browsers refuse prefixed cookies without Secure.
 */
export function usesSecureCookies(): boolean {
  return getEnv().NEXTAUTH_URL?.startsWith("https://") ?? false;
}

export function sessionCookieName(): string {
  return usesSecureCookies() ? "__Host-next-auth.session-token" : "next-auth.session-token";
}
