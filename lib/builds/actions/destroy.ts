import { conflict, serviceUnavailable } from "../../http/problem";
import { type Actor, assertCanActOnBuild } from "../permissions";
import { destroyRuntime } from "../queue/executor";
import { moveBuild } from "../repository";
import { RuntimeUnavailableError } from "../runtime/driver";
import type { BuildView } from "../schemas";
import { getBuild, presentBuild, requireBuild } from "../service";
import { type BuildStatus, isInProgress } from "../status";

/**
 * DELETE /builds/{id}: destroys the runtime of a build that is over (stops its processes, frees its port,
 * removes its runtime files, keeps the logs). Deleting a destroyed build answers it again.
 */
export async function destroyBuild(buildId: string, user: Actor): Promise<BuildView> {
  for (;;) {
    const build = await requireBuild(buildId);
    assertCanActOnBuild(user, build);
    const status = build.status as BuildStatus;
    if (status === "destroyed") return presentBuild(build, user);
    if (status === "queued" || isInProgress(status)) {
      throw conflict(`Build ${buildId} is ${status}; cancel it first with POST /builds/${buildId}/cancel.`);
    }
    if (status !== "destroying" && !(await moveBuild(buildId, status, "destroying"))) continue;
    try {
      await destroyRuntime(buildId);
    } catch (error) {
      if (!(error instanceof RuntimeUnavailableError)) throw error;
      throw serviceUnavailable(`Build ${buildId} stays destroying: ${error.message} It is tried again shortly.`, 30);
    }
    await moveBuild(buildId, "destroying", "destroyed");
    return getBuild(buildId, user);
  }
}

/**
 * DELETE of a build whose host is lost (no heartbeat for INSTANCE_LOST_AFTER_SECONDS; lib/cluster/forwarding.ts):
 * its runtime and logs are on a machine no instance reaches, maybe never again. The build is destroyed in the
 * database, so that it stops counting as live and showing as running; its port and runtime handles stay recorded,
 * and the host, if it comes back, removes what it left (its reaper's retryUnfinishedDestroys takes destroyed
 * builds that still hold them). Its runtime is never touched from here: it is another machine's.
 */
export async function destroyBuildOfLostHost(buildId: string, user: Actor, host: string): Promise<BuildView> {
  for (;;) {
    const build = await requireBuild(buildId);
    assertCanActOnBuild(user, build);
    const status = build.status as BuildStatus;
    if (status === "destroyed") return presentBuild(build, user);
    if (status === "queued" || isInProgress(status)) {
      // The heartbeat of any instance fails the builds a lost host had in progress, within a few seconds.
      throw conflict(
        `Build ${buildId} is ${status} on ${host}, which is lost; it is failed within seconds, then it can be destroyed.`,
      );
    }
    if (status !== "destroying" && !(await moveBuild(buildId, status, "destroying"))) continue;
    if (!(await moveBuild(buildId, "destroying", "destroyed"))) continue;
    return getBuild(buildId, user);
  }
}
