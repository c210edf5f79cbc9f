import { tooManyRequests } from "../http/problem";
import type { PublicUser } from "../users/roles";
import type { BuildsConfig } from "./config";
import { countBuildsOfUser, type UserBuildLimits } from "./repository";

/**
 * Per-user limits on builds: without them one account can start dozens of builds with a day's life in a minute
 * and hold every preview port, so that another user's build fails for want of one. Admins have their own
 * bounds (none unless configured); automatic builds have no creating user and are not counted here.
 */
const RETRY_AFTER_SECONDS = 60;

export function limitsFor(config: BuildsConfig, user: Pick<PublicUser, "role">): UserBuildLimits {
  const { limits } = config;
  return user.role === "admin"
    ? { live: limits.admin_live_per_user, queued: limits.admin_queued_per_user }
    : { live: limits.live_per_user, queued: limits.queued_per_user };
}

/** 429 naming the limit the user is at, with the numbers; nothing when they may add a build. */
export async function assertUnderUserLimits(
  user: Pick<PublicUser, "id" | "role">,
  limits: UserBuildLimits,
): Promise<void> {
  if (limits.live === null && limits.queued === null) return;
  const counts = await countBuildsOfUser(user.id);
  const key = (name: "live" | "queued") => `limits.${user.role === "admin" ? "admin_" : ""}${name}_per_user`;
  if (limits.live !== null && counts.live >= limits.live) {
    throw tooManyRequests(
      `You have ${counts.live} live builds (queued, in progress or running), and ${key("live")} allows ${limits.live}: ` +
        "cancel or destroy one of them, or wait until one ends, before starting another.",
      RETRY_AFTER_SECONDS,
    );
  }
  if (limits.queued !== null && counts.queued >= limits.queued) {
    throw tooManyRequests(
      `You have ${counts.queued} builds waiting in the queue, and ${key("queued")} allows ${limits.queued}: ` +
        "wait until one of them starts, or cancel one, before starting another.",
      RETRY_AFTER_SECONDS,
    );
  }
}
