import { getDb } from "../db";
import type { StoredUser } from "../users/repository";

// Data access for signed-out sessions. A row is needed only until the session's tokens expire by themselves.

export async function insertRevokedSession(sid: string, expiresAt: Date): Promise<void> {
  const db = getDb();
  await db.revokedSession.upsert({ where: { sid }, create: { sid, expiresAt }, update: { expiresAt } });
  await db.revokedSession.deleteMany({ where: { expiresAt: { lt: new Date() } } });
}

export async function isSessionRevoked(sid: string): Promise<boolean> {
  return (await getDb().revokedSession.findUnique({ where: { sid }, select: { sid: true } })) !== null;
}

/**
 * What every authenticated request asks: whether its session was signed out, and its user. One raw query
 * rather than two of Prisma's: this runs on every API call, and a query Prisma builds costs it about a
 * millisecond of CPU to compile (README, Performance). `user` is null when there is no such user.
 */
export async function findSessionUser(sid: string, userId: number): Promise<{ revoked: boolean; user: StoredUser | null }> {
  const [row] = await getDb().$queryRaw<(Omit<StoredUser, "id"> & { id: number | null; revoked: bigint | null })[]>`
    SELECT (SELECT 1 FROM "RevokedSession" WHERE "sid" = ${sid}) AS "revoked",
           "u"."id", "u"."email", "u"."isActive", "u"."createdAt", "u"."role", "u"."displayName"
    FROM (SELECT 1) LEFT JOIN "User" AS "u" ON "u"."id" = ${userId}`;
  const { revoked, id, ...fields } = row;
  return { revoked: revoked !== null, user: id === null ? null : { id, ...fields } };
}
