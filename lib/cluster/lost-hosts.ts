import { failInProgressBuildsOfHost, listExpiredRunningBuilds, moveBuild } from "../builds/repository";
import { getDialect } from "../db";
import { queryAll } from "../db/hot-sql";
import { getEnv } from "../server/env";
import { databaseNow, thisInstanceName } from "./instances";

/**
 * Lost hosts: an instance whose heartbeat is older than INSTANCE_LOST_AFTER_SECONDS has died (a
 * SIGKILL, a power cut, a network cut). Any instance that notices fails the builds it had in progress, naming
 * it, and expires its previews past their time to live; the failing is one conditional UPDATE, so two instances noticing together do not both act, and a host that
 * came back first (its own recovery) leaves nothing to do. Its runtimes, ports and processes stay recorded: they
 * are on that host, which cleans them up when it comes back (lib/builds/queue/executor.ts recovery, the reaper's
 * unfinished destroys). Queued builds were never its own: they wait for any instance with a free slot. Its
 * slots stop counting with it: claims are each instance's own.
 */
export async function failBuildsOfLostHosts(): Promise<{ failed: string[]; expired: string[] }> {
  // One instance per SQLite database: another name there is this server's own past (a restart on another
  // port), whose builds its recovery fails.
  if (getDialect() === "sqlite") return { failed: [], expired: [] };
  const now = await databaseNow();
  const lostBefore = new Date(now.getTime() - getEnv().INSTANCE_LOST_AFTER_SECONDS * 1000);
  const lost = await queryAll<{ name: string; heartbeatAt: string | Date }>(
    `SELECT "name", "heartbeatAt" FROM "Instance" WHERE "heartbeatAt" < ? AND "name" <> ?`,
    [lostBefore, thisInstanceName()],
  );
  const failed: string[] = [];
  const expired: string[] = [];
  for (const instance of lost) {
    const lastBeat = new Date(instance.heartbeatAt).toISOString();
    const message = `The host ${instance.name} running the build was lost: its last heartbeat was at ${lastBeat}. The build was not resumed.`;
    failed.push(...(await failInProgressBuildsOfHost(instance.name, message, now)));
    expired.push(...(await expirePreviewsOfHost(instance.name, now)));
  }
  return { failed, expired };
}

/**
 * The previews of a lost host that reached their time to live: its reaper cannot move them, so they would show as
 * running for as long as it stays away. They are moved to expired (a conditional move: two instances do it once);
 * their runtime stays recorded, and the host's unfinished-destroy pass removes it when it comes back.
 */
async function expirePreviewsOfHost(host: string, now: Date): Promise<string[]> {
  const expired: string[] = [];
  for (const build of await listExpiredRunningBuilds(now, host)) {
    if (build.host !== host) continue;
    if (await moveBuild(build.id, build.status as "running" | "sleeping", "expired")) expired.push(build.id);
  }
  return expired;
}
