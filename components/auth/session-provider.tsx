"use client";

import type { Session } from "next-auth";
import { SessionProvider as NextAuthSessionProvider } from "next-auth/react";

/**
 * next-auth's session context for the client components (the header and every action that needs a user),
 * starting from the session the server read for this page (null: nobody signed in), so nothing renders a
 * "checking" state first.
 */
export function SessionProvider({ session, children }: { session: Session | null; children: React.ReactNode }) {
  return <NextAuthSessionProvider session={session}>{children}</NextAuthSessionProvider>;
}
