import { getDb } from "../db";
import { asPrismaRow, queryOne } from "../db/hot-sql";
import type { StoredUser } from "../users/repository";

// Data access for signed-out sessions. A row is needed only until the session's tokens expire by themselves.

export async function insertRevokedSession(sid: string, expiresAt: Date): Promise<void> {
  const db = getDb();
  await db.revokedSession.upsert({ where: { sid }, create: { sid, expiresAt }, update: { expiresAt } });
  await db.revokedSession.deleteMany({ where: { expiresAt: { lt: new Date() } } });
}

export async function isSessionRevoked(sid: string): Promise<boolean> {
  return (await queryOne(`SELECT 1 FROM "RevokedSession" WHERE "sid" = ?`, [sid])) !== undefined;
}

/**
 * What every authenticated request asks: whether its session was signed out, and its user. One prepared
 * statement (lib/db/hot-sql.ts): this runs on every API call, and a query through
 * Prisma costs it about a millisecond of CPU (docs/performance.md). `user` is null when there is no such user.
 */
export async function findSessionUser(
  sid: string,
  userId: number,
): Promise<{ revoked: boolean; user: StoredUser | null }> {
  const row = (await queryOne(
    `SELECT (SELECT 1 FROM "RevokedSession" WHERE "sid" = ?) AS "revoked",
            "u"."id", "u"."email", "u"."isActive", "u"."createdAt", "u"."role", "u"."displayName"
     FROM (SELECT 1) AS "one" LEFT JOIN "User" AS "u" ON "u"."id" = ?`,
    [sid, userId],
  ))!;
  const { revoked, ...user } = asPrismaRow<StoredUser & { revoked: number | null }>(row, {
    dates: ["createdAt"],
    booleans: ["isActive"],
  });
  return { revoked: revoked !== null, user: user.id === null ? null : user };
}
