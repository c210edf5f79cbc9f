"use client";

import { SessionProvider as NextAuthSessionProvider } from "next-auth/react";

/** next-auth's session context for the client components (the header and every action that needs a user). */
export function SessionProvider({ children }: { children: React.ReactNode }) {
  return <NextAuthSessionProvider>{children}</NextAuthSessionProvider>;
}
