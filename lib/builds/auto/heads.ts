import { getDb } from "../../db";
import type { BuildTrigger } from "../schemas";

/** Data access for the heads of followed branches (AutoBranchHead): the newest commit noticed per branch. */
export type AutoTrigger = Extract<BuildTrigger, "webhook" | "poll">;

export function findHead(alias: string, branch: string) {
  return getDb().autoBranchHead.findUnique({ where: { alias_branch: { alias, branch } } });
}

export type HeadRecord = NonNullable<Awaited<ReturnType<typeof findHead>>>;

/** Records the newest commit of a branch; a pending one replaces an older pending one (newest per branch). */
export function saveHead(
  alias: string,
  branch: string,
  data: {
    commitSha: string;
    pending: boolean;
    trigger: AutoTrigger;
    triggeredBy: string | null;
    sourceBranch?: string | null;
  },
) {
  const noticedAt = new Date();
  return getDb().autoBranchHead.upsert({
    where: { alias_branch: { alias, branch } },
    create: { alias, branch, ...data, noticedAt },
    update: { ...data, noticedAt },
  });
}

/** Clears `pending` if the head still names that commit (a newer notice may have replaced it meanwhile). */
export async function markHeadBuilt(id: number, commitSha: string): Promise<void> {
  await getDb().autoBranchHead.updateMany({ where: { id, commitSha }, data: { pending: false } });
}

export async function deleteHead(alias: string, branch: string): Promise<void> {
  await getDb().autoBranchHead.deleteMany({ where: { alias, branch } });
}

export function listHeads(alias: string) {
  return getDb().autoBranchHead.findMany({ where: { alias }, orderBy: { id: "asc" } });
}

/** Notices waiting for room in the queue, oldest first. */
export function listPendingHeads() {
  return getDb().autoBranchHead.findMany({ where: { pending: true }, orderBy: { noticedAt: "asc" } });
}
