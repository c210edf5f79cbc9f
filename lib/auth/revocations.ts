import { getDb } from "../db";

// Data access for signed-out sessions. A row is needed only until the session's tokens expire by themselves.

export async function insertRevokedSession(sid: string, expiresAt: Date): Promise<void> {
  const db = getDb();
  await db.revokedSession.upsert({ where: { sid }, create: { sid, expiresAt }, update: { expiresAt } });
  await db.revokedSession.deleteMany({ where: { expiresAt: { lt: new Date() } } });
}

export async function isSessionRevoked(sid: string): Promise<boolean> {
  return (await getDb().revokedSession.findUnique({ where: { sid }, select: { sid: true } })) !== null;
}
