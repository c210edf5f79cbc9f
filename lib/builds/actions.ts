import { badRequest, conflict } from "../http/problem";
import type { PublicUser } from "../users/roles";
import { getBuildsConfig } from "./config";
import { createBuild } from "./create";
import { assertCanActOnBuild } from "./permissions";
import { setRunningBuildExpiry } from "./repository";
import type { BuildView } from "./schemas";
import { getBuild, requireBuild } from "./service";

/**
 * POST /builds/{id}/rebuild: a new build of the same repositories and modules, with every ref resolved
 * again (a branch gets its newest commit). Any signed-in user may ask; the new build is theirs.
 */
export async function rebuildBuild(user: PublicUser, buildId: string, receivedAt?: number): Promise<BuildView> {
  const build = await requireBuild(buildId);
  const { ttl } = getBuildsConfig();
  return createBuild(
    user,
    {
      repositories: build.repositories.map((repository) => ({ repository: repository.alias, ref: repository.ref })),
      modules: build.modules === "" ? [] : build.modules.split(","),
      // An extension may have lengthened the original's life past what a new build may ask for.
      ttl_seconds: Math.min(Math.max(build.ttlSeconds, ttl.min_seconds), ttl.max_seconds),
    },
    { trigger: "rebuild", receivedAt },
  );
}

/**
 * POST /builds/{id}/extend: a running build's remaining life becomes `ttlSeconds` from now, at most the
 * configured maximum. 409 when the build is not running (a queued build's life has not started yet).
 */
export async function extendBuild(user: PublicUser, buildId: string, ttlSeconds: number): Promise<BuildView> {
  const build = await requireBuild(buildId);
  assertCanActOnBuild(user, build);
  const { ttl } = getBuildsConfig();
  if (ttlSeconds > ttl.max_seconds) {
    throw badRequest(`ttl_seconds must be at most ${ttl.max_seconds} (ttl.max_seconds, counted from now); got ${ttlSeconds}.`, [
      { field: "body.ttl_seconds", message: `must be at most ${ttl.max_seconds}` },
    ]);
  }
  const notRunning = () => conflict(`Build ${buildId} is not running; only a running build can be extended.`);
  if (build.status !== "running") throw notRunning();
  // ttl_seconds becomes the time to live last asked for, now counted from this extension.
  const expiresAt = new Date(Date.now() + ttlSeconds * 1000);
  if (!(await setRunningBuildExpiry(buildId, expiresAt, ttlSeconds))) throw notRunning();
  return getBuild(buildId, user);
}
