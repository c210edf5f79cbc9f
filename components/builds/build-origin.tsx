"use client";

import { useTranslations } from "next-intl";
import { useCallback } from "react";
import type { BuildRepository, BuildSummary } from "@/lib/swr/types";

/** How a build was started, as a small tag; automatic builds (webhook, poll) stand out. */
export function TriggerBadge({ build }: { build: Pick<BuildSummary, "trigger" | "triggered_by"> }) {
  const t = useTranslations("builds");
  if (build.trigger === "manual") return null;
  const label = t(`triggers.${build.trigger}`);
  const automatic = build.trigger === "webhook" || build.trigger === "poll";
  return (
    <span
      data-testid="build-trigger"
      title={build.triggered_by ? t("triggerBy", { trigger: label, who: build.triggered_by }) : label}
      className={`inline-block rounded px-1.5 py-0.5 text-xs font-medium whitespace-nowrap ${
        automatic
          ? "bg-sky-100 text-sky-900 dark:bg-sky-900/60 dark:text-sky-100"
          : "bg-slate-100 text-slate-800 dark:bg-slate-800 dark:text-slate-200"
      }`}
    >
      {label}
    </span>
  );
}

type Origin = Pick<BuildSummary, "trigger" | "triggered_by" | "created_by">;

/** Who or what started the build, in words: "Webhook, pushed by ana", "Polling", "ana@example.com". */
export function useDescribeOrigin(): (build: Origin) => string {
  const t = useTranslations("builds.origin");
  return useCallback(
    (build: Origin) => {
      switch (build.trigger) {
        case "webhook":
          return build.triggered_by ? t("webhookBy", { who: build.triggered_by }) : t("webhook");
        case "poll":
          return t("poll");
        case "rebuild":
          return t("rebuild", { who: build.triggered_by ?? build.created_by });
        default:
          return build.triggered_by ?? build.created_by;
      }
    },
    [t],
  );
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
