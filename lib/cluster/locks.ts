import { getPool } from "../db/postgresql";

/**
 * A lock held across the cluster while `work` runs, for work that checks then acts over several queries and
 * slow steps in between (git reads), where a transaction would hold its snapshot too long. On PostgreSQL a
 * session advisory lock on a connection of the pool kept for the purpose. A single instance (lib/topology) needs
 * none: the caller's own serialisation within the process is all it takes.
 */
const CLUSTER_LOCK_KEY = 72_405_193; // beside lib/db/hot-sql.ts's advisory lock keys

export async function withClusterLock<T>(name: string, work: () => Promise<T>): Promise<T> {
  const client = await getPool().connect();
  let broken: Error | undefined;
  try {
    await client.query("SELECT pg_advisory_lock($1, hashtext($2))", [CLUSTER_LOCK_KEY, name]);
    try {
      return await work();
    } finally {
      await client
        .query("SELECT pg_advisory_unlock($1, hashtext($2))", [CLUSTER_LOCK_KEY, name])
        .catch((error: Error) => {
          broken = error;
        });
    }
  } catch (error) {
    broken ??= error as Error;
    throw error;
  } finally {
    // A connection whose unlock failed is closed, not reused: ending its session releases the lock.
    client.release(broken);
  }
}
