import { execute } from "../hot-sql";

/**
 * Takes or renews a job's lease in one statement: inserted when nobody holds it, updated when this holder has it
 * or its holder let it expire, left alone otherwise (then no row changes). `acquiredAt` moves only with a new
 * holder. Times are the database's clock (lib/cluster/leases.ts says why).
 */
export const TAKE_LEASE_SQL = {
  sqlite: `INSERT INTO "JobLease" ("name", "holder", "acquiredAt", "expiresAt")
    VALUES (?, ?, strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now'), strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now', printf('%+.3f seconds', ?)))
    ON CONFLICT ("name") DO UPDATE SET
      "acquiredAt" = CASE WHEN "JobLease"."holder" = excluded."holder" THEN "JobLease"."acquiredAt" ELSE excluded."acquiredAt" END,
      "nextRunAt" = CASE WHEN "JobLease"."holder" = excluded."holder" THEN "JobLease"."nextRunAt" ELSE NULL END,
      "holder" = excluded."holder",
      "expiresAt" = excluded."expiresAt"
    WHERE "JobLease"."holder" = excluded."holder" OR "JobLease"."expiresAt" <= strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now')`,
  postgresql: `INSERT INTO "JobLease" AS lease ("name", "holder", "acquiredAt", "expiresAt")
    VALUES (?, ?, now() AT TIME ZONE 'UTC', (now() AT TIME ZONE 'UTC') + make_interval(secs => ?))
    ON CONFLICT ("name") DO UPDATE SET
      "acquiredAt" = CASE WHEN lease."holder" = excluded."holder" THEN lease."acquiredAt" ELSE excluded."acquiredAt" END,
      "nextRunAt" = CASE WHEN lease."holder" = excluded."holder" THEN lease."nextRunAt" ELSE NULL END,
      "holder" = excluded."holder",
      "expiresAt" = excluded."expiresAt"
    WHERE lease."holder" = excluded."holder" OR lease."expiresAt" <= now() AT TIME ZONE 'UTC'`,
} as const;

export const RELEASE_LEASE_SQL = `DELETE FROM "JobLease" WHERE "name" = ? AND "holder" = ?`;

/** Takes the lease `name` for `holder`, or renews it; false when another holder has it and it has not expired. */
export async function takeLease(name: string, holder: string, ttlSeconds: number): Promise<boolean> {
  return (await execute(TAKE_LEASE_SQL, [name, holder, ttlSeconds])) === 1;
}

/** Gives the lease back (only when `holder` has it), so that another instance takes it at its next try. */
export async function releaseLease(name: string, holder: string): Promise<void> {
  await execute(RELEASE_LEASE_SQL, [name, holder]);
}
