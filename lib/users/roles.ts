import { getEnv } from "../server/env";
import { defaultDisplayName } from "./display-names";
import type { StoredUser } from "./repository";

export type Role = "admin" | "user";

/** A user as the rest of the app sees it: the stored fields with the role that applies now. */
export type PublicUser = Omit<StoredUser, "role"> & { role: Role };

/**
 * The role that applies: the stored one, or admin when ADMIN_EMAILS names the email and registration is
 * closed. An admin comes only from what the operator or an admin does: the first user registered (stored as
 * admin), `npm run users:admin -- EMAIL` on the server, an admin's PATCH /users/{user_id}, or ADMIN_EMAILS while
 * only admins create accounts.
 * With open registration ADMIN_EMAILS is ignored (lib/server/env.ts warns): emails are never verified, so whoever
 * registered a listed address first would be an admin. Computed on every request, so editing ADMIN_EMAILS and
 * restarting grants or withdraws it without touching the database.
 */
export function withEffectiveRole(user: StoredUser): PublicUser {
  const env = getEnv();
  const admin = user.role === "admin" || (env.REGISTRATION === "closed" && env.ADMIN_EMAILS.has(user.email));
  return { ...user, role: admin ? "admin" : "user" };
}

/** What public reads show for a user: the display name, never the email. */
export function publicNameOf(user: Pick<StoredUser, "email" | "displayName">): string {
  return user.displayName || defaultDisplayName(user.email);
}

export { defaultDisplayName } from "./display-names";
