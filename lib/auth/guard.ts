import { getToken } from "next-auth/jwt";
import type { NextRequest } from "next/server";
import { getEnv } from "../env";
import { unauthorized } from "../http/problem";
import { findUserById, type PublicUser } from "../users/repository";

/**
 * The user behind a request: a bearer token, or else the signed-in browser's session cookie. Verifies the
 * token's signature and expiry and that the user still exists and is active; throws 401 otherwise.
 */
export async function requireUser(request: Request): Promise<PublicUser> {
  const header = request.headers.get("authorization");
  if (header !== null && !/^Bearer\s+\S+$/i.test(header)) {
    throw unauthorized("The Authorization header must be 'Bearer <token>'.");
  }
  const token = await getToken({
    req: request as unknown as NextRequest,
    secret: getEnv().NEXTAUTH_SECRET,
  }).catch(() => null);
  if (!header && !token) {
    throw unauthorized("Authentication required: send 'Authorization: Bearer <token>' or sign in.");
  }
  if (!token || typeof token.sub !== "string") throw unauthorized("The token is invalid or has expired.");
  const user = await findUserById(Number(token.sub));
  if (!user) throw unauthorized("The token's user no longer exists.");
  if (!user.isActive) throw unauthorized("The token's user is inactive.");
  return user;
}
