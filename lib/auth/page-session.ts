import { getServerSession, type Session } from "next-auth";
import { getAuthOptions } from "./options";

/**
 * The browser session of the page being rendered, read from its cookie as GET /api/auth/session reads it (a
 * signed-out or revoked session is none). Handed to the session provider, the first HTML already says who is
 * signed in, and nothing waits on a request that a page without scripts never makes.
 */
export async function readPageSession(): Promise<Session | null> {
  return getServerSession(getAuthOptions());
}
