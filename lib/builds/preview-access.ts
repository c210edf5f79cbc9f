import { getDb } from "../db";
import { previewAccessOf } from "./config";
import type { PreviewAccess } from "./schemas";

export type { PreviewAccess };

/**
 * Who may open a build's preview through the gateway: `public` (anyone with its address) or `users` (people
 * signed in to the dashboard, and holders of a share link). A build's own choice (Build.previewAccess, set by its
 * owner or an admin) wins; without one, its first repository's preview_access, the one its names carry. The
 * choice is remembered per branch (BranchPreviewAccess): the branch's next builds, automatic ones included, start
 * with it, so a push does not reopen a preview its team closed.
 */

const isPreviewAccess = (value: string | null | undefined): value is PreviewAccess =>
  value === "public" || value === "users";

/** The access of a build's preview from its own choice (null: none) and its first repository's alias. */
export function previewAccessFor(choice: string | null | undefined, firstAlias: string | null): PreviewAccess {
  return isPreviewAccess(choice) ? choice : previewAccessOf(firstAlias);
}

/** The branch's last choice, or null when none was made for a build of it. */
export async function branchPreviewAccess(alias: string, ref: string): Promise<PreviewAccess | null> {
  const row = await getDb().branchPreviewAccess.findUnique({ where: { alias_ref: { alias, ref } } });
  return isPreviewAccess(row?.access) ? row.access : null;
}

/** Sets a build's choice and makes it its branch's (the branch of its first repository). */
export async function choosePreviewAccess(
  buildId: string,
  first: { alias: string; ref: string } | null,
  access: PreviewAccess,
): Promise<void> {
  const db = getDb();
  await db.$transaction([
    db.build.update({ where: { id: buildId }, data: { previewAccess: access } }),
    ...(first
      ? [
          db.branchPreviewAccess.upsert({
            where: { alias_ref: { alias: first.alias, ref: first.ref } },
            create: { alias: first.alias, ref: first.ref, access },
            update: { access, chosenAt: new Date() },
          }),
        ]
      : []),
  ]);
}

/** A new build of a branch starts with the branch's last choice, if one was made. */
export async function inheritBranchPreviewAccess(
  buildId: string,
  first: { alias: string; ref: string },
): Promise<void> {
  const access = await branchPreviewAccess(first.alias, first.ref);
  if (access) await getDb().build.update({ where: { id: buildId }, data: { previewAccess: access } });
}
