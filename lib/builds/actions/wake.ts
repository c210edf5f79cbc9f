import { conflict } from "../../http/problem";
import { type Actor, assertCanActOnBuild } from "../permissions";
import { wakeOnce } from "../runtime/sleep";
import type { BuildView } from "../schemas";
import { getBuild, requireBuild } from "../service";

/**
 * POST /builds/{id}/wake: starts the runtime again and waits for its healthcheck; answers the build running,
 * or failed (stage `wake`) when the runtime did not come back. A running build answers as it is.
 */
export async function wakeBuild(user: Actor, buildId: string): Promise<BuildView> {
  const build = await requireBuild(buildId);
  assertCanActOnBuild(user, build);
  if (build.status === "running") return getBuild(buildId, user);
  if (build.status !== "sleeping")
    throw conflict(`Build ${buildId} is ${build.status}; only a sleeping build can be woken.`);
  if (!(await wakeOnce(build))) throw conflict(`Build ${buildId} is already waking up.`);
  return getBuild(buildId, user);
}
