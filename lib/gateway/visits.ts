import { getBuildsConfig } from "../builds/config";
import { execute } from "../db/hot-sql";
import { processWide } from "../server/process-wide";

/**
 * Visits through the gateway are activity (Build.visitedAt): the sleep policy puts the least recently visited
 * preview to sleep first (max_awake_builds), and one nobody visited for sleep_after_idle_seconds goes to sleep
 * (lib/builds/runtime/sleep.ts). The gateway asks where a name leads at most once a second while it is visited;
 * each build's visit is written at most every 30 s (a quarter of sleep_after_idle_seconds when that is shorter),
 * so a busy preview costs the database one small write every half minute.
 */
const VISIT_WRITE_INTERVAL_MS = 30_000;

function writeInterval(): number {
  const idleSeconds = getBuildsConfig().sleep_after_idle_seconds;
  return idleSeconds === undefined
    ? VISIT_WRITE_INTERVAL_MS
    : Math.min(VISIT_WRITE_INTERVAL_MS, (idleSeconds * 1000) / 4);
}
const globalForVisits = processWide<{ gatewayVisitsWritten?: Map<string, number> }>("gatewayVisitsWritten", () => ({}));

export function noteVisit(buildId: string, now = Date.now()): void {
  const written = (globalForVisits.gatewayVisitsWritten ??= new Map());
  const last = written.get(buildId);
  if (last !== undefined && now - last < writeInterval()) return;
  written.set(buildId, now);
  if (written.size > 10_000)
    for (const [id, at] of written) if (now - at >= VISIT_WRITE_INTERVAL_MS) written.delete(id);
  void execute(`UPDATE "Build" SET "visitedAt" = ? WHERE "id" = ?`, [new Date(now), buildId]).catch((error) =>
    console.error(`gateway: recording a visit to build ${buildId} failed:`, error),
  );
}
