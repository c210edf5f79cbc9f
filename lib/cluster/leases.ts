import { execute, queryAll, queryOne } from "../db/hot-sql";
import { releaseLease, takeLease } from "../db/statements/job-leases";
import { getEnv } from "../server/env";
import type { Job } from "../server/job";
import { startJob as startScheduledJob, stopJob as stopScheduledJob } from "../server/scheduler";

/**
 * Work that must run once across the cluster (the scheduled bank fetch, repository polling) runs on the
 * instance that holds its lease: a row of JobLease naming the holder and when the lease ends unless renewed.
 * Every instance with the job configured tries to take the lease three times per lease time; the holder's try
 * renews it. The lease time is INSTANCE_LOST_AFTER_SECONDS (30 s by default), the time after which the
 * cluster counts a silent instance as lost (lib/cluster/instances.ts): its jobs and its builds go on elsewhere alike.
 * An instance that dies stops renewing, and the first other one to try after the expiry takes the job over.
 * An instance that stops cleanly (SIGTERM) gives its leases back, so another takes over at its next try.
 *
 * Times are the database's (its clock, not each instance's), so instances with skewed clocks still agree on
 * when a lease has ended. A holder stops its job by itself once TTL_MS have passed since its last successful
 * renewal was sent, which is before the database can see the lease end: a holder cut off from the database
 * does not run beside its successor (the jobs under a lease do nothing that doing twice would spoil, should a
 * stalled process overrun by a moment).
 *
 * A single instance (lib/topology) runs its jobs without any of this: no lease is written.
 */
function leaseTtlMs(): number {
  return getEnv().INSTANCE_LOST_AFTER_SECONDS * 1000;
}

/**
 * The holder of a job's lease announces when it runs the job next (null: not known), so that every instance can
 * say it: the timers that decide it are the holder's own.
 */
export async function announceNextRun(name: string, holder: string, at: Date | null): Promise<void> {
  await execute(`UPDATE "JobLease" SET "nextRunAt" = ? WHERE "name" = ? AND "holder" = ?`, [at, name, holder]);
}

/** The next run the live holder of a job's lease announced; null without a live holder or an announcement. */
export async function findAnnouncedNextRun(name: string): Promise<Date | null> {
  const row = await queryOne<{ nextRunAt: Date | string | null }>(
    `SELECT "nextRunAt" FROM "JobLease" WHERE "name" = ? AND "expiresAt" > now() AT TIME ZONE 'UTC'`,
    [name],
  );
  return row?.nextRunAt ? new Date(row.nextRunAt) : null;
}

const LIST_LEASES_SQL = `SELECT "name", "holder", "acquiredAt", "expiresAt" FROM "JobLease" ORDER BY "name"`;

export interface LeaseRecord {
  name: string;
  holder: string;
  acquiredAt: Date;
  expiresAt: Date;
}

/** Every lease, expired or not: which instance runs which job. */
export async function listLeases(): Promise<LeaseRecord[]> {
  const rows = await queryAll<Record<string, string | Date>>(LIST_LEASES_SQL);
  return rows.map((row) => ({
    name: String(row.name),
    holder: String(row.holder),
    acquiredAt: new Date(row.acquiredAt),
    expiresAt: new Date(row.expiresAt),
  }));
}

interface LeaseKeeper {
  /** The job runs here. */
  running: boolean;
  /** Local time after which this holder no longer counts on the lease (its last renewal's send time + TTL). */
  heldUntil: number;
  /** The last failure logged, so that a database that stays down is logged once, not at every try. */
  lastFailure: string | null;
}

/**
 * The job, started (lib/server/scheduler.ts) only while this instance holds its lease (the lease is named after the
 * job), by a job of its own that tries for the lease three times per lease time. That one's first try ends before
 * it counts as started, so that on a lone instance the job has started by then.
 */
export function runOnceAcrossCluster(job: Job, holder: () => string): Job {
  const ttlMs = leaseTtlMs();
  const renewMs = ttlMs / 3;
  const keeper: LeaseKeeper = { running: false, heldUntil: 0, lastFailure: null };

  const startJob = async () => {
    keeper.running = true;
    console.info(`cluster: ${holder()} runs "${job.name}"`);
    await startScheduledJob(job);
  };
  const stopJob = async (why: string) => {
    keeper.running = false;
    console.warn(`cluster: ${holder()} stops "${job.name}": ${why}`);
    await stopScheduledJob(job.name);
  };

  const tryOnce = async () => {
    const sentAt = Date.now();
    let held: boolean;
    try {
      // A try that hangs (a connection stuck on a cut network) counts as failed once the next is due.
      held = await withTimeout(takeLease(job.name, holder(), ttlMs / 1000), renewMs);
      keeper.lastFailure = null;
    } catch (error) {
      const message = (error as Error).message;
      if (keeper.lastFailure !== message)
        console.warn(`cluster: the lease of "${job.name}" could not be renewed: ${message}`);
      keeper.lastFailure = message;
      // Still ours until heldUntil: a short database hiccup must not stop and restart the job.
      if (keeper.running && Date.now() >= keeper.heldUntil)
        await stopJob("its lease ran out while the database was unreachable");
      return;
    }
    if (held) {
      keeper.heldUntil = sentAt + ttlMs;
      if (!keeper.running) await startJob();
    } else if (keeper.running) {
      await stopJob("another instance holds its lease");
    }
  };

  return {
    name: `${job.name} lease`,
    runsOn: "each",
    every: () => renewMs,
    firstRun: "awaited",
    run: tryOnce,
    async stop() {
      if (!keeper.running) return;
      keeper.running = false;
      await stopScheduledJob(job.name);
      await releaseLease(job.name, holder()).catch(() => undefined);
    },
  };
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer from the database within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
