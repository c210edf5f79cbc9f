import { conflict } from "../../http/problem";
import { type Actor, assertCanActOnBuild } from "../permissions";
import { destroyRuntime, stopActiveBuild } from "../queue/executor";
import { closeOpenStages, moveBuild } from "../repository";
import type { BuildView } from "../schemas";
import { getBuild, requireBuild } from "../service";
import { type BuildStatus, isInProgress } from "../status";

/**
 * POST /builds/{id}/cancel: stops a queued or in-progress build. The status becomes `canceled` first, so the
 * executor cannot move it further; then the executor stops the stage's process group and destroys the runtime.
 */
export async function cancelBuild(buildId: string, user: Actor): Promise<BuildView> {
  for (;;) {
    const build = await requireBuild(buildId);
    assertCanActOnBuild(user, build);
    const status = build.status as BuildStatus;
    if (status !== "queued" && !isInProgress(status)) {
      const hint = status === "running" ? " It is running: DELETE /builds/{id} destroys its runtime." : "";
      throw conflict(
        `Build ${buildId} is already over (${status}); there is nothing to cancel.${hint}`.replace("{id}", buildId),
      );
    }
    // Only from the status just read: if the executor moved the build meanwhile, read it again.
    if (!(await moveBuild(buildId, status, "canceled", { finishedAt: new Date() }))) continue;
    const stopped = status !== "queued" && (await stopActiveBuild(buildId));
    if (!stopped) {
      // Nobody is working on it (queued, or between two steps): close it here.
      await destroyRuntime(buildId);
      await closeOpenStages(buildId, "canceled", "canceled", new Date());
    }
    return getBuild(buildId, user);
  }
}
