import { queryAll } from "../db/hot-sql";
import { getEnv } from "../server/env";
import { databaseNow, type Membership, thisInstanceName } from "./instances";

/**
 * Lost hosts: an instance whose heartbeat is older than INSTANCE_LOST_AFTER_SECONDS has died (a SIGKILL, a power
 * cut, a network cut). Any instance that notices hands each to the membership's `failBuildsOfLostHost` (the builds
 * decide what becomes of its builds: lib/builds/membership.ts), which must be safe to run on two instances noticing
 * together. Its slots stop counting with it: claims are each instance's own.
 */
export async function failBuildsOfLostHosts(
  failBuildsOfLostHost: Membership["failBuildsOfLostHost"],
): Promise<{ failed: string[]; expired: string[] }> {
  const now = await databaseNow();
  const lostBefore = new Date(now.getTime() - getEnv().INSTANCE_LOST_AFTER_SECONDS * 1000);
  const lost = await queryAll<{ name: string; heartbeatAt: string | Date }>(
    `SELECT "name", "heartbeatAt" FROM "Instance" WHERE "heartbeatAt" < ? AND "name" <> ?`,
    [lostBefore, thisInstanceName()],
  );
  const failed: string[] = [];
  const expired: string[] = [];
  for (const instance of lost) {
    const changed = await failBuildsOfLostHost(
      { name: instance.name, lastHeartbeat: new Date(instance.heartbeatAt) },
      now,
    );
    failed.push(...changed.failed);
    expired.push(...changed.expired);
  }
  return { failed, expired };
}
