import bcrypt from "bcrypt";

/**
 * Password hashes: bcrypt, computed by the native `bcrypt` package on libuv's thread pool. At the default cost
 * (12) a hash or a comparison takes about 300 ms of CPU; each step down halves it (PASSWORD_HASH_COST). Done in
 * JavaScript (bcryptjs, before) on the server's one event loop, every sign-in attempt, even one for an unknown
 * email, stalled every other request for up to 100 ms at a time, and a few attempts a second kept the loop busy.
 * Hashes from either are the same format ($2b$12$...); a comparison reads the cost from the stored hash, so
 * hashes made at another cost keep working.
 */
export const DEFAULT_PASSWORD_HASH_COST = 12;

export function hashPassword(password: string, cost = DEFAULT_PASSWORD_HASH_COST): Promise<string> {
  unknownUserHash(cost);
  return bcrypt.hash(password, cost);
}

// Compared against when the email is unknown, so that a wrong email costs as long as a wrong password and
// response times do not reveal which accounts exist. Computed once per cost, on the thread pool, as soon as the
// first password is hashed or compared.
const unknownUserHashes = new Map<number, Promise<string>>();

function unknownUserHash(cost: number): Promise<string> {
  let hash = unknownUserHashes.get(cost);
  if (!hash) {
    hash = bcrypt.hash("not-a-real-password", cost);
    unknownUserHashes.set(cost, hash);
  }
  return hash;
}

/**
 * Whether `password` matches `hash`; with no hash (an unknown user), false after the same amount of work as a
 * hash made at `cost`.
 */
export async function passwordMatches(
  password: string,
  hash: string | undefined,
  cost = DEFAULT_PASSWORD_HASH_COST,
): Promise<boolean> {
  const unknown = unknownUserHash(cost);
  const matches = await bcrypt.compare(password, hash ?? (await unknown));
  return hash !== undefined && matches;
}
