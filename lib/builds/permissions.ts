import { forbidden } from "../http/problem";

/** Who is acting: the user from requireUser(). */
export interface Actor {
  id: number;
  role: "admin" | "user";
}

/** The build acted on; `createdById` is null for builds the service started itself (webhook, poll). */
export interface OwnedBuild {
  id: string;
  createdById: number | null;
}

/** Whether the actor may change a build (cancel, destroy, extend): an admin, or the build's creator. */
export function canActOnBuild(user: Actor, build: OwnedBuild): boolean {
  if (user.role === "admin") return true;
  return build.createdById !== null && build.createdById === user.id;
}

/**
 * Throws a 403 problem unless the actor may change the build. A build nobody created (started by the service)
 * is for admins only. Reads stay public; this guards the writes on one build.
 */
export function assertCanActOnBuild(user: Actor, build: OwnedBuild): void {
  if (canActOnBuild(user, build)) return;
  throw forbidden(
    build.createdById === null
      ? `Build ${build.id} was started by the service; only an admin may change it.`
      : `Only the user who started build ${build.id}, or an admin, may change it.`,
  );
}
