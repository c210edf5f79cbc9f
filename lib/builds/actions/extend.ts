import { badRequest, conflict } from "../../http/problem";
import type { PublicUser } from "../../users/roles";
import { getBuildsConfig } from "../config";
import { extendedExpiry } from "../extension";
import { assertCanActOnBuild } from "../permissions";
import { setRunningBuildExpiry } from "../repository";
import type { BuildView } from "../schemas";
import { getBuild, requireBuild } from "../service";

/**
 * POST /builds/{id}/extend: adds `addSeconds` to a running build's time left, capped at the configured
 * maximum counted from now; never shortens it (lib/builds/extension.ts). 409 when the build is not running
 * (a queued build's life has not started yet).
 */
export async function extendBuild(user: PublicUser, buildId: string, addSeconds: number): Promise<BuildView> {
  let build = await requireBuild(buildId);
  assertCanActOnBuild(user, build);
  const { ttl } = getBuildsConfig();
  if (addSeconds > ttl.max_seconds) {
    throw badRequest(`ttl_seconds must be at most ${ttl.max_seconds} (ttl.max_seconds); got ${addSeconds}.`, [
      { field: "body.ttl_seconds", message: `must be at most ${ttl.max_seconds}` },
    ]);
  }
  const notRunning = () => conflict(`Build ${buildId} is not running; only a running build can be extended.`);
  // Compare-and-set on the expiry: two extensions at once both add their time, neither overwrites the other.
  for (let attempt = 0; attempt < 5; attempt += 1) {
    if (build.status !== "running" || !build.expiresAt) throw notRunning();
    const { expiresAt } = extendedExpiry(build.expiresAt, addSeconds, ttl.max_seconds);
    // ttl_seconds stays the build's whole time to live: from reaching running to its expiry.
    const runningSince = build.finishedAt ?? build.startedAt ?? build.createdAt;
    const lifeSeconds = Math.round((expiresAt.getTime() - runningSince.getTime()) / 1000);
    if (await setRunningBuildExpiry(buildId, build.expiresAt, expiresAt, lifeSeconds)) return getBuild(buildId, user);
    build = await requireBuild(buildId);
  }
  throw conflict(`Build ${buildId} was being extended by someone else at the same time; try again.`);
}
