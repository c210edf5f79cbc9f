import { getDb } from "../db";
import { defaultDisplayName } from "./display-names";

// Data access for users. The password hash is selected only where a password is checked.
const storedFields = { id: true, email: true, isActive: true, createdAt: true, role: true, displayName: true } as const;

export type StoredRole = "admin" | "user";
export type StoredUser = {
  id: number;
  email: string;
  isActive: boolean;
  createdAt: Date;
  role: string;
  displayName: string;
};

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/**
 * Inserts a user; the first user of an empty table is stored as an admin. `chooseDisplayName` gets every
 * other user's shown name and answers the new user's (or throws). Reading, choosing and inserting share one
 * transaction (the SQLite adapter runs them one at a time), so two simultaneous registrations cannot both
 * become the first admin, nor take the same name.
 */
export function insertUser(
  email: string,
  passwordHash: string,
  chooseDisplayName: (shownNames: string[]) => string,
): Promise<StoredUser> {
  return getDb().$transaction(async (tx) => {
    const others = await tx.user.findMany({ select: { email: true, displayName: true } });
    const role: StoredRole = others.length === 0 ? "admin" : "user";
    const displayName = chooseDisplayName(others.map((user) => user.displayName || defaultDisplayName(user.email)));
    return tx.user.create({ data: { email, passwordHash, displayName, role }, select: storedFields });
  });
}

export function countUsers(): Promise<number> {
  return getDb().user.count();
}

export function findUserWithHashByEmail(email: string) {
  return getDb().user.findUnique({ where: { email }, select: { ...storedFields, passwordHash: true } });
}

/** Stores a user's role; null when no user has that email. */
export async function updateUserRole(email: string, role: StoredRole): Promise<StoredUser | null> {
  const { count } = await getDb().user.updateMany({ where: { email }, data: { role } });
  return count === 0 ? null : getDb().user.findUnique({ where: { email }, select: storedFields });
}

/** Stores the role of the user with `id`; null when there is none. */
export async function updateUserRoleById(id: number, role: StoredRole): Promise<StoredUser | null> {
  const { count } = await getDb().user.updateMany({ where: { id }, data: { role } });
  return count === 0 ? null : getDb().user.findUnique({ where: { id }, select: storedFields });
}
