import { getDb } from "../db";

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
 * Inserts a user; the first user of an empty table is stored as an admin. Count and insert share one
 * transaction (the SQLite adapter runs them one at a time), so two simultaneous first registrations cannot both
 * become admins.
 */
export function insertUser(email: string, passwordHash: string, displayName: string): Promise<StoredUser> {
  return getDb().$transaction(async (tx) => {
    const role: StoredRole = (await tx.user.count()) === 0 ? "admin" : "user";
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
