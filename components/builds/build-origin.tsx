import type { BuildRepository, BuildSummary } from "@/lib/swr/types";

const TRIGGER_LABELS: Record<BuildSummary["trigger"], string> = {
  manual: "manual",
  webhook: "auto · webhook",
  poll: "auto · poll",
  rebuild: "rebuild",
};

/** How a build was started, as a small tag; automatic builds (webhook, poll) stand out. */
export function TriggerBadge({ build }: { build: Pick<BuildSummary, "trigger" | "triggered_by"> }) {
  if (build.trigger === "manual") return null;
  const automatic = build.trigger === "webhook" || build.trigger === "poll";
  return (
    <span
      data-testid="build-trigger"
      title={
        build.triggered_by ? `${TRIGGER_LABELS[build.trigger]} by ${build.triggered_by}` : TRIGGER_LABELS[build.trigger]
      }
      className={`inline-block rounded px-1.5 py-0.5 text-xs font-medium whitespace-nowrap ${
        automatic
          ? "bg-sky-100 text-sky-900 dark:bg-sky-900/60 dark:text-sky-100"
          : "bg-slate-100 text-slate-800 dark:bg-slate-800 dark:text-slate-200"
      }`}
    >
      {TRIGGER_LABELS[build.trigger]}
    </span>
  );
}

/** Who or what started the build, in words: "webhook, pushed by ana", "poll", "ana@example.com". */
export function describeOrigin(build: Pick<BuildSummary, "trigger" | "triggered_by" | "created_by">): string {
  switch (build.trigger) {
    case "webhook":
      return build.triggered_by ? `Webhook, pushed by ${build.triggered_by}` : "Webhook";
    case "poll":
      return "Polling (a new commit)";
    case "rebuild":
      return `Rebuild by ${build.triggered_by ?? build.created_by}`;
    default:
      return build.triggered_by ?? build.created_by;
  }
}

/** A commit's subject and author, when git told them. */
export function CommitLine({ repo }: { repo: BuildRepository }) {
  if (!repo.commit_subject && !repo.commit_author) return null;
  return (
    <span
      className="block max-w-80 truncate text-xs text-slate-600 dark:text-slate-400"
      title={repo.commit_subject ?? undefined}
      data-testid="commit-subject"
    >
      {repo.commit_subject}
      {repo.commit_author && <span className="text-slate-500 dark:text-slate-400"> — {repo.commit_author}</span>}
    </span>
  );
}
