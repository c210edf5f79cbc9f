"use client";

import { useTranslations } from "next-intl";
import { useFormat } from "@/components/ui/use-format";
import { useNow } from "@/components/ui/use-now";
import type { Stage } from "@/lib/swr/types";
import { StageStatusIcon } from "./build-status-badge";

interface StageTimelineProps {
  stages: Stage[];
  /** Stage names are the driver's own (checkout, install, ... or render, validate, database, ...). */
  selected: string | null;
  onSelect: (stage: string) => void;
}

/**
 * The stages in order with status and duration (ticking while running); choosing one shows its log. Each
 * button's visible text is its accessible name; aria-pressed says which log is shown.
 */
export function StageTimeline({ stages, selected, onSelect }: StageTimelineProps) {
  const t = useTranslations("builds.stages");
  const format = useFormat();
  const now = useNow(1_000);
  return (
    <ol className="flex flex-col gap-1" aria-label={t("list")}>
      {stages.map((stage) => {
        const duration =
          stage.duration_ms ??
          (stage.status === "running" && stage.started_at ? now - new Date(stage.started_at).getTime() : null);
        const isSelected = stage.name === selected;
        return (
          <li key={stage.name}>
            <button
              type="button"
              aria-pressed={isSelected}
              onClick={() => onSelect(stage.name)}
              data-testid={`stage-${stage.name}`}
              data-status={stage.status}
              className="grid w-full grid-cols-[auto_1fr_auto] items-center gap-2 rounded-md px-2 py-1.5 text-left text-sm hover:bg-slate-100 focus-visible:outline-2 focus-visible:outline-indigo-600 aria-pressed:bg-indigo-50 aria-pressed:ring-1 aria-pressed:ring-indigo-300 dark:hover:bg-slate-800 dark:aria-pressed:bg-indigo-950/60 dark:aria-pressed:ring-indigo-700"
            >
              <StageStatusIcon status={stage.status} />
              <span>
                <span className="font-medium break-all">{stage.name}</span>{" "}
                <span className="text-slate-600 dark:text-slate-400">
                  {stage.status === "canceled" && !stage.started_at
                    ? t("didNotRun")
                    : stage.status === "canceled"
                      ? t("interrupted")
                      : t.has(`status.${stage.status}`)
                        ? t(`status.${stage.status}`)
                        : stage.status}
                  {stage.exit_code !== null && stage.exit_code !== 0 ? t("exit", { code: stage.exit_code }) : ""}
                </span>
                {/* Restored from the install cache instead of run: why it took seconds, not minutes. */}
                {stage.cached && (
                  <span
                    className="ml-1.5 inline-block rounded bg-emerald-100 px-1.5 text-xs font-medium whitespace-nowrap text-emerald-900 dark:bg-emerald-900/40 dark:text-emerald-200"
                    data-testid="stage-cached"
                  >
                    {t("cached")}
                  </span>
                )}
              </span>
              <span className="text-slate-600 tabular-nums dark:text-slate-400">
                {duration !== null ? format.duration(duration) : ""}
              </span>
            </button>
          </li>
        );
      })}
    </ol>
  );
}
