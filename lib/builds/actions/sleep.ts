import { conflict } from "../../http/problem";
import { type Actor, assertCanActOnBuild } from "../permissions";
import { putToSleep } from "../runtime/sleep";
import type { BuildView } from "../schemas";
import { getBuild, requireBuild } from "../service";

/** POST /builds/{id}/sleep: same permissions as extend. A sleeping build answers as it is. */
export async function sleepBuild(user: Actor, buildId: string): Promise<BuildView> {
  const build = await requireBuild(buildId);
  assertCanActOnBuild(user, build);
  if (build.status === "sleeping") return getBuild(buildId, user);
  if (build.status !== "running")
    throw conflict(`Build ${buildId} is ${build.status}; only a running build can be put to sleep.`);
  if (build.runtimeHandle === null)
    throw conflict(`Build ${buildId} has no runtime (no start command): there is nothing to put to sleep.`);
  if (!(await putToSleep(build))) throw conflict(`Build ${buildId} changed meanwhile; it was not put to sleep.`);
  return getBuild(buildId, user);
}
