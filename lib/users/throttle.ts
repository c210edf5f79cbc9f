import { getDb } from "../db";
import { get, lockStep, transaction } from "../db/hot-sql";
import { tooManyRequests } from "../http/problem";
import { processWide } from "../server/process-wide";

export const MAX_LOGIN_FAILURES = 10;
export const LOGIN_FAILURE_WINDOW_MS = 15 * 60 * 1000;

/**
 * Password guessing is throttled per email *and* client address: ten failures within 15 minutes from one
 * address lock that address out for that email, while the owner signing in from elsewhere is not affected.
 *
 * The attempt is counted and recorded by one INSERT ... SELECT before the password is checked, in a transaction
 * that holds the pair's lock (SQLite's write lock; an advisory lock on PostgreSQL, whose statements would
 * otherwise count side by side), so of any number of simultaneous attempts, on any number of instances, at most
 * MAX_LOGIN_FAILURES get to compare a password; the rest answer 429. A successful sign-in deletes the pair's attempts again. If the attempt cannot
 * be recorded (a full disk), the statement throws and no password is compared: the throttle fails closed.
 */
export async function claimLoginAttempt(email: string, address: string): Promise<number> {
  const now = new Date();
  const since = new Date(now.getTime() - LOGIN_FAILURE_WINDOW_MS);
  const inserted = await transaction("write", function* () {
    yield* lockStep("loginAttempts", `${email}\n${address}`);
    // PostgreSQL types a SELECT's values from the values: the date and the number say theirs.
    return yield* get<{ id: number }>(
      {
        sqlite: `
          INSERT INTO "LoginAttempt" ("email", "address", "createdAt")
          SELECT ?, ?, ?
          WHERE (SELECT COUNT(*) FROM "LoginAttempt" WHERE "email" = ? AND "address" = ? AND "createdAt" >= ?) < ?
          RETURNING "id"`,
        postgresql: `
          INSERT INTO "LoginAttempt" ("email", "address", "createdAt")
          SELECT ?, ?, CAST(? AS TIMESTAMP(3))
          WHERE (SELECT COUNT(*) FROM "LoginAttempt" WHERE "email" = ? AND "address" = ? AND "createdAt" >= CAST(? AS TIMESTAMP(3))) < CAST(? AS INTEGER)
          RETURNING "id"`,
      },
      [email, address, now, email, address, since, MAX_LOGIN_FAILURES],
    );
  });
  await pruneOldAttempts(since);
  if (inserted) return Number(inserted.id);

  // The oldest of the last MAX_LOGIN_FAILURES attempts decides when the next one is allowed.
  const [oldestCounted] = await getDb().loginAttempt.findMany({
    where: { email, address, createdAt: { gte: since } },
    orderBy: { createdAt: "desc" },
    skip: MAX_LOGIN_FAILURES - 1,
    take: 1,
    select: { createdAt: true },
  });
  const freeAt = (oldestCounted?.createdAt.getTime() ?? now.getTime()) + LOGIN_FAILURE_WINDOW_MS;
  const retryAfter = Math.max(1, Math.ceil((freeAt - now.getTime()) / 1000));
  throw tooManyRequests(
    `Too many failed sign-in attempts for ${email} from this address; try again in ${retryAfter} seconds.`,
    retryAfter,
  );
}

/** The password was right: forget this address's failures for the email. */
export async function clearLoginAttempts(email: string, address: string): Promise<void> {
  await getDb().loginAttempt.deleteMany({ where: { email, address } });
}

const PRUNE_INTERVAL_MS = 60_000;
const pruning = processWide<{ loginAttemptsPrunedAt?: number }>("loginAttemptsPrunedAt", () => ({}));

/** Attempts older than the window no longer count; delete them now and then so guessing cannot grow the table. */
async function pruneOldAttempts(since: Date): Promise<void> {
  const now = Date.now();
  if (now - (pruning.loginAttemptsPrunedAt ?? 0) < PRUNE_INTERVAL_MS) return;
  pruning.loginAttemptsPrunedAt = now;
  // Best effort: a failed clean-up (a full disk) must not turn a 429 into a 503.
  await getDb()
    .loginAttempt.deleteMany({ where: { createdAt: { lt: since } } })
    .catch(() => undefined);
}
