import { prismaErrorCode } from "../http/prisma-errors";
import { conflict, forbidden, notFound, unauthorized } from "../http/problem";
import { getEnv } from "../server/env";
import { chooseDisplayName, DisplayNameTakenError } from "./display-names";
import { hashPassword, passwordMatches } from "./passwords";
import {
  countUsers,
  findUserWithHashByEmail,
  insertUser,
  normalizeEmail,
  type StoredRole,
  updateUserRoleById,
} from "./repository";
import { type PublicUser, publicNameOf, withEffectiveRole } from "./roles";
import type { RegisterUser, UserView } from "./schemas";
import { claimLoginAttempt, clearLoginAttempts } from "./throttle";

export { LOGIN_FAILURE_WINDOW_MS, MAX_LOGIN_FAILURES } from "./throttle";

export function toUserView(user: PublicUser): UserView {
  return {
    id: user.id,
    email: user.email,
    display_name: publicNameOf(user),
    role: user.role,
    is_active: user.isActive,
    created_at: user.createdAt.toISOString(),
  };
}

/**
 * Who may register: anyone while REGISTRATION=open; when closed, only a signed-in admin, except the very first
 * user of an empty database (who becomes the admin). `signedIn` reads the request's session, consulted only
 * when registration is closed (an expired cookie must not stop an open registration).
 */
export async function assertCanRegister(signedIn: () => Promise<PublicUser | null>): Promise<void> {
  if (getEnv().REGISTRATION === "open") return;
  if ((await countUsers()) === 0) return;
  const actor = await signedIn();
  if (actor?.role === "admin") return;
  if (!actor) throw unauthorized("Registration is closed: an admin must sign in to create users.");
  throw forbidden("Registration is closed: only admins may create users.");
}

export async function registerUser(input: RegisterUser): Promise<UserView> {
  const email = normalizeEmail(input.email);
  const passwordHash = await hashPassword(input.password, getEnv().PASSWORD_HASH_COST);
  try {
    const user = await insertUser(email, passwordHash, (shownNames) =>
      chooseDisplayName(input.display_name, email, shownNames),
    );
    return toUserView(withEffectiveRole(user));
  } catch (error) {
    if (prismaErrorCode(error) === "P2002") {
      throw conflict(`A user with the email ${email} already exists.`);
    }
    if (error instanceof DisplayNameTakenError) throw conflict(error.message);
    throw error;
  }
}

/**
 * Checks an email and password from a client address. The attempt is counted and recorded first
 * (lib/users/throttle.ts: 429 with Retry-After past the limit, even with the right password), then 401 for
 * wrong credentials or an inactive account.
 */
export async function authenticate(rawEmail: string, password: string, address: string): Promise<PublicUser> {
  const email = normalizeEmail(rawEmail);
  await claimLoginAttempt(email, address);
  const user = await findUserWithHashByEmail(email);
  const matches = await passwordMatches(password, user?.passwordHash, getEnv().PASSWORD_HASH_COST);
  if (!user || !matches) throw unauthorized("Incorrect email or password.");
  await clearLoginAttempts(email, address);
  if (!user.isActive) throw unauthorized("This account is inactive.");
  const { passwordHash: _hash, ...stored } = user;
  return withEffectiveRole(stored);
}

/**
 * An admin makes another user an admin, or a plain user again (PATCH /users/{user_id}): with the first user
 * and `npm run users:admin` on the server, the only ways to become an admin. Admins cannot change their own
 * role, so the last admin cannot leave the service without one. 404 for an unknown user.
 */
export async function setUserRole(admin: PublicUser, userId: number, role: StoredRole): Promise<UserView> {
  if (userId === admin.id)
    throw conflict("Admins cannot change their own role: ask another admin, or run npm run users:admin on the server.");
  const user = await updateUserRoleById(userId, role);
  if (!user) throw notFound(`No user has the id ${userId}.`);
  return toUserView(withEffectiveRole(user));
}
