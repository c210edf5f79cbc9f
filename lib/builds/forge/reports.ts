import { getDb } from "../../db";

/** Data access for what builds told the git hosts (ForgeReport) and the pull requests' comments. */
export interface NewForgeReport {
  buildId: string;
  alias: string;
  kind: "status" | "comment";
  state: string;
  description: string;
  outcome: "sent" | "failed";
  attempts: number;
  error: string | null;
}

export async function recordForgeReport(report: NewForgeReport): Promise<void> {
  // A build purged meanwhile (retention) takes its reports with it: nothing to keep then.
  await getDb()
    .forgeReport.create({ data: report })
    .catch((error: { code?: string }) => {
      if (error.code !== "P2003") throw error;
    });
}

export function listForgeReports(buildId: string) {
  return getDb().forgeReport.findMany({ where: { buildId }, orderBy: { id: "asc" } });
}

export type ForgeReportRecord = Awaited<ReturnType<typeof listForgeReports>>[number];

export async function findPullRequestComment(alias: string, number: number): Promise<string | null> {
  const row = await getDb().pullRequestComment.findUnique({ where: { alias_number: { alias, number } } });
  return row?.commentId ?? null;
}

export async function savePullRequestComment(alias: string, number: number, commentId: string): Promise<void> {
  await getDb().pullRequestComment.upsert({
    where: { alias_number: { alias, number } },
    create: { alias, number, commentId },
    update: { commentId },
  });
}
