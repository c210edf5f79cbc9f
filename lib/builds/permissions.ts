import { forbidden } from "../http/problem";
import type { PublicUser } from "../users/repository";

/**
 * Who may act on a build (cancel, destroy, extend): its creator. A build with no creator (started by the
 * service: webhook or poll) is only for admins, which the roles of the security issue add here.
 */
export function assertCanActOnBuild(user: PublicUser, build: { id: string; createdById: number | null }): void {
  if (build.createdById !== null && build.createdById === user.id) return;
  throw forbidden(
    build.createdById === null
      ? `Build ${build.id} was started by the service; only an admin may act on it.`
      : `Build ${build.id} belongs to another user; only its creator or an admin may act on it.`,
  );
}
