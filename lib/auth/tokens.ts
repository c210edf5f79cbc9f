import { encode } from "next-auth/jwt";
import { getEnv } from "../env";
import type { PublicUser } from "../users/repository";

/**
 * Mints an API access token. It is the same signed and encrypted JWT that next-auth keeps in the browser's
 * session cookie, so one verification path (getToken) serves API clients and the dashboard.
 */
export async function mintAccessToken(user: PublicUser) {
  const env = getEnv();
  const expiresIn = env.ACCESS_TOKEN_EXPIRE_MINUTES * 60;
  const accessToken = await encode({
    token: { sub: String(user.id), email: user.email },
    secret: env.NEXTAUTH_SECRET,
    maxAge: expiresIn,
  });
  return { access_token: accessToken, token_type: "bearer" as const, expires_in: expiresIn };
}
