import { getDialect } from "../db";
import { getEnv } from "../env";
import { queryAll } from "../hot-sql";
import { failInProgressBuildsOfHost } from "../builds/repository";
import { databaseNow, thisInstanceName } from "./instances";

/**
 * Lost hosts (issue 19): an instance whose heartbeat is older than INSTANCE_LOST_AFTER_SECONDS has died (a
 * SIGKILL, a power cut, a network cut). Any instance that notices fails the builds it had in progress, naming
 * it; the failing is one conditional UPDATE, so two instances noticing together do not both act, and a host that
 * came back first (its own recovery) leaves nothing to do. Its runtimes, ports and processes stay recorded: they
 * are on that host, which cleans them up when it comes back (lib/builds/queue/executor.ts recovery, the reaper's
 * unfinished destroys). Queued builds were never its own: they wait for any instance with a free slot. Its
 * slots stop counting with it: claims are each instance's own.
 */
export async function failBuildsOfLostHosts(): Promise<string[]> {
  // One instance per SQLite database: another name there is this server's own past (a restart on another
  // port), whose builds its recovery fails.
  if (getDialect() === "sqlite") return [];
  const now = await databaseNow();
  const lostBefore = new Date(now.getTime() - getEnv().INSTANCE_LOST_AFTER_SECONDS * 1000);
  const lost = await queryAll<{ name: string; heartbeatAt: string | Date }>(
    `SELECT "name", "heartbeatAt" FROM "Instance" WHERE "heartbeatAt" < ? AND "name" <> ?`,
    [lostBefore, thisInstanceName()],
  );
  const failed: string[] = [];
  for (const instance of lost) {
    const lastBeat = new Date(instance.heartbeatAt).toISOString();
    const message = `The host ${instance.name} running the build was lost: its last heartbeat was at ${lastBeat}. The build was not resumed.`;
    failed.push(...(await failInProgressBuildsOfHost(instance.name, message, now)));
  }
  return failed;
}
