"use client";

import { useTranslations } from "next-intl";
import { useCallback } from "react";
import type { BuildStatus, StageStatus } from "@/lib/swr/types";

const buildTones: Record<BuildStatus, string> = {
  // Waiting (violet, hollow dot) and gone (no fill, dashed outline) must not look alike.
  queued:
    "bg-violet-50 text-violet-800 ring-1 ring-violet-300 dark:bg-violet-950 dark:text-violet-200 dark:ring-violet-700",
  checking_out: "ring-1 bg-sky-50 text-sky-800 ring-sky-300 dark:bg-sky-950 dark:text-sky-200 dark:ring-sky-800",
  installing: "ring-1 bg-sky-50 text-sky-800 ring-sky-300 dark:bg-sky-950 dark:text-sky-200 dark:ring-sky-800",
  testing: "ring-1 bg-sky-50 text-sky-800 ring-sky-300 dark:bg-sky-950 dark:text-sky-200 dark:ring-sky-800",
  starting: "ring-1 bg-sky-50 text-sky-800 ring-sky-300 dark:bg-sky-950 dark:text-sky-200 dark:ring-sky-800",
  sleeping: "bg-slate-200 text-slate-700 dark:bg-slate-700 dark:text-slate-200",
  running:
    "ring-1 bg-emerald-50 text-emerald-800 ring-emerald-300 dark:bg-emerald-950 dark:text-emerald-200 dark:ring-emerald-800",
  failed: "ring-1 bg-red-50 text-red-800 ring-red-300 dark:bg-red-950 dark:text-red-200 dark:ring-red-800",
  canceled:
    "ring-1 bg-amber-50 text-amber-900 ring-amber-300 dark:bg-amber-950 dark:text-amber-200 dark:ring-amber-800",
  expired:
    "ring-1 bg-slate-100 text-slate-700 ring-slate-300 dark:bg-slate-800 dark:text-slate-300 dark:ring-slate-600",
  destroying: "border border-dashed border-slate-400 text-slate-700 dark:border-slate-500 dark:text-slate-300",
  destroyed: "border border-dashed border-slate-400 text-slate-700 dark:border-slate-500 dark:text-slate-300",
};

/** A status in the page's language; one a newer driver adds, unknown to the messages, as the API writes it. */
export function useStatusLabel(): (status: string) => string {
  const t = useTranslations("builds.statuses");
  return useCallback(
    (status: string) => (t.has(status as never) ? t(status as never) : status.replace(/_/g, " ")),
    [t],
  );
}

/** A build's status as a coloured pill; the word is always there, colour only repeats it. */
export function BuildStatusBadge({ status }: { status: BuildStatus }) {
  const statusLabel = useStatusLabel();
  const moving = ["checking_out", "installing", "testing", "starting", "destroying"].includes(status);
  const dot =
    status === "queued"
      ? "border-[1.5px] border-current"
      : status === "destroyed"
        ? "hidden"
        : `bg-current ${moving ? "animate-pulse" : ""}`;
  return (
    <span
      data-testid="build-status"
      // An unknown status (a newer driver's) reads as work in progress.
      className={`inline-flex items-center gap-1.5 rounded-full px-2 py-0.5 text-xs font-medium whitespace-nowrap ring-inset ${buildTones[status] ?? buildTones.installing}`}
    >
      <span aria-hidden className={`size-2 rounded-full ${dot}`} />
      {statusLabel(status)}
    </span>
  );
}

const stageIcons: Record<StageStatus, { symbol: string; className: string }> = {
  pending: { symbol: "○", className: "text-slate-500 dark:text-slate-400" },
  running: { symbol: "◐", className: "text-sky-700 animate-spin dark:text-sky-300" },
  succeeded: { symbol: "✓", className: "text-emerald-700 dark:text-emerald-300" },
  failed: { symbol: "✕", className: "text-red-700 dark:text-red-300" },
  skipped: { symbol: "–", className: "text-slate-500 dark:text-slate-400" },
  canceled: { symbol: "⊘", className: "text-amber-700 dark:text-amber-300" },
};

export function StageStatusIcon({ status }: { status: StageStatus }) {
  const icon = stageIcons[status] ?? stageIcons.pending;
  return (
    <span aria-hidden className={`inline-grid size-5 place-items-center text-sm font-bold ${icon.className}`}>
      {icon.symbol}
    </span>
  );
}
