import bcrypt from "bcryptjs";
import { Prisma } from "@prisma/client";
import { conflict, tooManyRequests, unauthorized } from "../http/problem";
import {
  clearLoginFailures,
  findUserWithHashByEmail,
  insertUser,
  listLoginFailuresSince,
  normalizeEmail,
  recordLoginFailure,
  type PublicUser,
} from "./repository";
import type { RegisterUser, UserView } from "./schemas";

const BCRYPT_COST = 12;
export const MAX_LOGIN_FAILURES = 10;
export const LOGIN_FAILURE_WINDOW_MS = 15 * 60 * 1000;

// Compared against when the email is unknown, so that a wrong email costs as long as a wrong password
// and response times do not reveal which accounts exist.
const UNKNOWN_USER_HASH = bcrypt.hashSync("not-a-real-password", BCRYPT_COST);

export function toUserView(user: PublicUser): UserView {
  return {
    id: user.id,
    email: user.email,
    is_active: user.isActive,
    created_at: user.createdAt.toISOString(),
  };
}

export async function registerUser(input: RegisterUser): Promise<UserView> {
  const email = normalizeEmail(input.email);
  const passwordHash = await bcrypt.hash(input.password, BCRYPT_COST);
  try {
    return toUserView(await insertUser(email, passwordHash));
  } catch (error) {
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") {
      throw conflict(`A user with the email ${email} already exists.`);
    }
    throw error;
  }
}

/**
 * Checks an email and password. Throws 429 with Retry-After once an email has collected MAX_LOGIN_FAILURES
 * failures within the window (checked before the password, so guessing stops even with the right one),
 * and 401 for wrong credentials or an inactive account.
 */
export async function authenticate(rawEmail: string, password: string): Promise<PublicUser> {
  const email = normalizeEmail(rawEmail);
  const now = Date.now();
  const failures = await listLoginFailuresSince(email, new Date(now - LOGIN_FAILURE_WINDOW_MS));
  if (failures.length >= MAX_LOGIN_FAILURES) {
    const oldestCounted = failures[failures.length - MAX_LOGIN_FAILURES].createdAt.getTime();
    const retryAfter = Math.max(1, Math.ceil((oldestCounted + LOGIN_FAILURE_WINDOW_MS - now) / 1000));
    throw tooManyRequests(
      `Too many failed sign-in attempts for ${email}; try again in ${retryAfter} seconds.`,
      retryAfter,
    );
  }
  const user = await findUserWithHashByEmail(email);
  const matches = await bcrypt.compare(password, user?.passwordHash ?? UNKNOWN_USER_HASH);
  if (!user || !matches) {
    await recordLoginFailure(email);
    throw unauthorized("Incorrect email or password.");
  }
  if (!user.isActive) throw unauthorized("This account is inactive.");
  if (failures.length > 0) await clearLoginFailures(email);
  const { passwordHash: _hash, ...publicUser } = user;
  return publicUser;
}
