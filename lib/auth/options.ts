import type { NextAuthOptions } from "next-auth";
import Credentials from "next-auth/providers/credentials";
import { getEnv } from "../env";
import { HttpProblem } from "../http/problem";
import { authenticate } from "../users/service";

/**
 * next-auth is the browser's session layer: a credentials sign-in against the same users as the API, and a
 * JWT session cookie that the API's guard reads exactly like a bearer token (lib/auth/guard.ts).
 */
export function getAuthOptions(): NextAuthOptions {
  const env = getEnv();
  return {
    secret: env.NEXTAUTH_SECRET,
    session: { strategy: "jwt", maxAge: env.ACCESS_TOKEN_EXPIRE_MINUTES * 60 },
    providers: [
      Credentials({
        name: "Email and password",
        credentials: {
          email: { label: "Email", type: "email" },
          password: { label: "Password", type: "password" },
        },
        async authorize(credentials) {
          if (!credentials?.email || !credentials.password) return null;
          try {
            const user = await authenticate(credentials.email, credentials.password);
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
        if (user) token.sub = user.id;
        return token;
      },
      async session({ session, token }) {
        if (session.user && token.sub) (session.user as { id?: string }).id = token.sub;
        return session;
      },
    },
  };
}
