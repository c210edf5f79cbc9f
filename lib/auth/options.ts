import type { NextAuthOptions } from "next-auth";
import Credentials from "next-auth/providers/credentials";
import { clientAddress } from "../http/client-address";
import { HttpProblem } from "../http/problem";
import { getEnv } from "../server/env";
import { authenticate } from "../users/service";
import { sessionCookieName, usesSecureCookies } from "./cookies";
import { isSessionRevoked } from "./revocations";
import { API_TOKEN_USE, newSessionId, revokeSession } from "./tokens";

/**
 * next-auth is the browser's session layer: a credentials sign-in against the same users as the API, and a
 * JWT session cookie that the API's guard reads exactly like a bearer token (lib/auth/guard.ts).
 */
export function getAuthOptions(): NextAuthOptions {
  const env = getEnv();
  const secure = usesSecureCookies();
  return {
    secret: env.NEXTAUTH_SECRET,
    session: { strategy: "jwt", maxAge: env.ACCESS_TOKEN_EXPIRE_MINUTES * 60 },
    useSecureCookies: secure,
    cookies: {
      // Host-only and, under HTTPS, `__Host-`: no preview host can read, set or shadow it (lib/auth/cookies.ts).
      sessionToken: {
        name: sessionCookieName(),
        options: { httpOnly: true, sameSite: "lax", path: "/", secure },
      },
    },
    providers: [
      Credentials({
        name: "Email and password",
        credentials: {
          email: { label: "Email", type: "email" },
          password: { label: "Password", type: "password" },
        },
        async authorize(credentials, request) {
          if (!credentials?.email || !credentials.password) return null;
          try {
            const address = clientAddress((request?.headers ?? {}) as Record<string, string>);
            const user = await authenticate(credentials.email, credentials.password, address);
            return { id: String(user.id), email: user.email };
          } catch (error) {
            // next-auth shows a thrown message to the sign-in form: say why (throttled, inactive, wrong).
            if (error instanceof HttpProblem) throw new Error(error.detail);
            throw error;
          }
        },
      }),
    ],
    callbacks: {
      async jwt({ token, user }) {
        if (user) {
          token.sub = user.id;
          token.sid = newSessionId();
        } else if (token.use === API_TOKEN_USE) {
          // An API token sent as the session cookie: refreshing would re-issue it with a new expiry (lib/auth/tokens.ts).
          throw new Error("An API token is not a session cookie.");
        } else if (typeof token.sid !== "string" || (await isSessionRevoked(token.sid))) {
          // Refreshing a signed-out session's cookie fails, and next-auth then clears it.
          throw new Error("The session was signed out.");
        }
        return token;
      },
      async session({ session, token }) {
        if (session.user && token.sub) (session.user as { id?: string }).id = token.sub;
        return session;
      },
    },
    events: {
      // The dashboard's "Sign out" (POST /api/auth/signout) revokes the session server-side, so a copy of the
      // cookie kept elsewhere stops working too, not only the browser's own.
      async signOut({ token }) {
        if (typeof token?.sid === "string") await revokeSession(token.sid);
      },
    },
  };
}
