import { getDb } from "../db";

// Data access for users. The password hash is selected only where a password is checked.
const publicFields = { id: true, email: true, isActive: true, createdAt: true } as const;

export type PublicUser = { id: number; email: string; isActive: boolean; createdAt: Date };

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export function insertUser(email: string, passwordHash: string): Promise<PublicUser> {
  return getDb().user.create({ data: { email, passwordHash }, select: publicFields });
}

export function findUserById(id: number): Promise<PublicUser | null> {
  return getDb().user.findUnique({ where: { id }, select: publicFields });
}

export function findUserWithHashByEmail(email: string) {
  return getDb().user.findUnique({ where: { email }, select: { ...publicFields, passwordHash: true } });
}

export function recordLoginFailure(email: string) {
  return getDb().loginFailure.create({ data: { email } });
}

export function listLoginFailuresSince(email: string, since: Date) {
  return getDb().loginFailure.findMany({
    where: { email, createdAt: { gte: since } },
    orderBy: { createdAt: "asc" },
    select: { createdAt: true },
  });
}

export function clearLoginFailures(email: string) {
  return getDb().loginFailure.deleteMany({ where: { email } });
}
