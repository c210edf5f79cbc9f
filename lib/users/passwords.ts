import bcrypt from "bcrypt";

/**
 * Password hashes: bcrypt at cost 12, computed by the native `bcrypt` package on libuv's thread pool. A hash or
 * a comparison takes about 300 ms of CPU; done in JavaScript (bcryptjs, before) on the server's one event loop,
 * every sign-in attempt, even one for an unknown email, stalled every other request for up to 100 ms at a time,
 * and a few attempts a second kept the loop busy. Hashes from either are the same format ($2b$12$...).
 */
const BCRYPT_COST = 12;

export function hashPassword(password: string): Promise<string> {
  return bcrypt.hash(password, BCRYPT_COST);
}

// Compared against when the email is unknown, so that a wrong email costs as long as a wrong password and
// response times do not reveal which accounts exist. Computed once, on the thread pool, as the module loads.
const unknownUserHash = hashPassword("not-a-real-password");

/** Whether `password` matches `hash`; with no hash (an unknown user), false after the same amount of work. */
export async function passwordMatches(password: string, hash: string | undefined): Promise<boolean> {
  const matches = await bcrypt.compare(password, hash ?? (await unknownUserHash));
  return hash !== undefined && matches;
}
