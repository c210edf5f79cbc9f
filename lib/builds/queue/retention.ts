import path from "node:path";
import { getBuildsConfig } from "../config";
import { deleteBuildRow, listBuildsEndedBefore } from "../repository";
import { removeFolders, workspacePaths } from "../runtime/workspace";
import { buildsOfThisHost } from "./executor";

/**
 * Retention: builds that are over (failed, canceled, expired, destroyed) keep their rows and logs for
 * retention_days after they ended; then the reaper purges both, which bounds the disk the logs take.
 */
const PURGE_BATCH = 200;
const DAY_MS = 24 * 3600 * 1000;

/** Purges the builds that ended more than retention_days ago; returns their ids. */
export async function purgeExpiredRetention(now = new Date()): Promise<string[]> {
  const config = getBuildsConfig();
  const cutoff = new Date(now.getTime() - config.retention_days * DAY_MS);
  const purged: string[] = [];
  // Each host purges its own builds: their logs are in its builds_root.
  for (const build of await listBuildsEndedBefore(cutoff, PURGE_BATCH, buildsOfThisHost())) {
    // A runtime still recorded is not over: the reaper's other passes finish it first.
    if (build.port !== null || build.runtimeHandle !== null) continue;
    // The row goes first, only from the status just read: a build moved meanwhile is left for the next pass.
    if (!(await deleteBuildRow(build.id, build.status))) continue;
    const folder = workspacePaths(config, build.id).root;
    // What is left is the logs, the server's own; removed by a walk that follows no link all the same.
    if (path.dirname(folder) === config.builds_root) await removeFolders([folder]);
    purged.push(build.id);
  }
  return purged;
}
