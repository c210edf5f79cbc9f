/**
 * `npm run users:admin -- EMAIL` makes an existing user an admin; `npm run users:admin -- --revoke EMAIL` makes
 * them a plain user again. Run on the server against the configured database (DATABASE_URL): granting admin is
 * something only the operator can do, never a self-registration (docs/security.md). The first user registered
 * is an admin already. Exits 1 when no user has the email.
 */
import { getDb } from "../lib/db";
import { getEnv, InvalidEnvironmentError } from "../lib/server/env";
import { normalizeEmail, updateUserRole } from "../lib/users/repository";

async function main(): Promise<number> {
  const args = process.argv.slice(2).filter((arg) => arg !== "--");
  const revoke = args.includes("--revoke");
  const emails = args.filter((arg) => arg !== "--revoke");
  if (emails.length !== 1) {
    console.error("usage: npm run users:admin -- [--revoke] EMAIL");
    return 2;
  }
  getEnv();
  const email = normalizeEmail(emails[0]);
  const user = await updateUserRole(email, revoke ? "user" : "admin");
  await getDb().$disconnect();
  if (!user) {
    console.error(`No user has the email ${email}: register first, then run this again.`);
    return 1;
  }
  console.log(`${user.email} (user ${user.id}) is now ${revoke ? "a user" : "an admin"}.`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(
      error instanceof InvalidEnvironmentError ? error.message : `users:admin failed: ${(error as Error).message}`,
    );
    process.exit(1);
  },
);
