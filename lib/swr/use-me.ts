import { useSession } from "next-auth/react";
import useSWR from "swr";
import { type ApiError, request } from "./fetcher";
import type { Me } from "./types";

/**
 * The signed-in user (GET /users/me), with the role that applies now; undefined while signed out or loading.
 * Keyed by the session's user, so signing in as someone else never shows the previous person's role.
 */
export function useMe() {
  const { data: session, status } = useSession();
  const userId = status === "authenticated" ? (session?.user as { id?: string } | undefined)?.id : undefined;
  return useSWR<Me, ApiError, readonly [string, string] | null>(userId ? ["/users/me", userId] : null, ([url]) =>
    request<Me>(url),
  );
}

/** Whether the signed-in user is an admin: false while signed out or loading, so admin actions never flicker in. */
export function useIsAdmin(): boolean {
  return useMe().data?.role === "admin";
}
