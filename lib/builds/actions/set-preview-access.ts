import { conflict } from "../../http/problem";
import type { PublicUser } from "../../users/roles";
import { getBuildsConfig } from "../config";
import { assertCanActOnBuild } from "../permissions";
import { choosePreviewAccess, type PreviewAccess } from "../preview-access";
import type { BuildView } from "../schemas";
import { getBuild, requireBuild } from "../service";

/**
 * PATCH /builds/{id} with `preview_access`: the build's owner or an admin opens its preview to anyone or keeps it
 * to signed-in users. The choice becomes its branch's: the branch's next builds start with it. It takes effect at
 * the gateway within its one-second cache. 409 without a gateway, where previews are reached at their port and no
 * access applies.
 */
export async function setPreviewAccess(user: PublicUser, buildId: string, access: PreviewAccess): Promise<BuildView> {
  const build = await requireBuild(buildId);
  assertCanActOnBuild(user, build);
  if (!getBuildsConfig().gateway)
    throw conflict(
      "This service has no gateway (gateway: in the builds configuration): previews have no access to set.",
    );
  const first = build.repositories.find((repository) => repository.position === 0) ?? null;
  await choosePreviewAccess(buildId, first, access);
  return getBuild(buildId, user);
}
