import type { PublicUser } from "../../users/roles";
import { getBuildsConfig } from "../config";
import type { BuildView } from "../schemas";
import { requireBuild } from "../service";
import { createBuild } from "./create";

/**
 * POST /builds/{id}/rebuild: a new build of the same repositories and modules, with every ref resolved
 * again (a branch gets its newest commit). Any signed-in user may ask; the new build is theirs.
 */
export async function rebuildBuild(
  user: PublicUser,
  buildId: string,
  options: { installCache?: boolean; receivedAt?: number } = {},
): Promise<BuildView> {
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
    { trigger: "rebuild", receivedAt: options.receivedAt, installCache: options.installCache },
  );
}
