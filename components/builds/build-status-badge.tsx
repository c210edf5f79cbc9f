import type { BuildStatus, StageStatus } from "@/lib/swr/types";

const buildTones: Record<BuildStatus, string> = {
  queued: "bg-slate-100 text-slate-800 ring-slate-300 dark:bg-slate-800 dark:text-slate-200 dark:ring-slate-600",
  checking_out: "bg-sky-50 text-sky-800 ring-sky-300 dark:bg-sky-950 dark:text-sky-200 dark:ring-sky-800",
  installing: "bg-sky-50 text-sky-800 ring-sky-300 dark:bg-sky-950 dark:text-sky-200 dark:ring-sky-800",
  testing: "bg-sky-50 text-sky-800 ring-sky-300 dark:bg-sky-950 dark:text-sky-200 dark:ring-sky-800",
  starting: "bg-sky-50 text-sky-800 ring-sky-300 dark:bg-sky-950 dark:text-sky-200 dark:ring-sky-800",
  running: "bg-emerald-50 text-emerald-800 ring-emerald-300 dark:bg-emerald-950 dark:text-emerald-200 dark:ring-emerald-800",
  failed: "bg-red-50 text-red-800 ring-red-300 dark:bg-red-950 dark:text-red-200 dark:ring-red-800",
  canceled: "bg-amber-50 text-amber-900 ring-amber-300 dark:bg-amber-950 dark:text-amber-200 dark:ring-amber-800",
  expired: "bg-slate-100 text-slate-700 ring-slate-300 dark:bg-slate-800 dark:text-slate-300 dark:ring-slate-600",
  destroying: "bg-slate-100 text-slate-700 ring-slate-300 dark:bg-slate-800 dark:text-slate-300 dark:ring-slate-600",
  destroyed: "bg-slate-100 text-slate-700 ring-slate-300 dark:bg-slate-800 dark:text-slate-300 dark:ring-slate-600",
};

export const statusLabel = (status: string) => status.replace(/_/g, " ");

/** A build's status as a coloured pill; the word is always there, colour only repeats it. */
export function BuildStatusBadge({ status }: { status: BuildStatus }) {
  const moving = ["checking_out", "installing", "testing", "starting", "destroying"].includes(status);
  return (
    <span
      data-testid="build-status"
      className={`inline-flex items-center gap-1.5 rounded-full px-2 py-0.5 text-xs font-medium whitespace-nowrap ring-1 ring-inset ${buildTones[status] ?? buildTones.queued}`}
    >
      <span aria-hidden className={`size-1.5 rounded-full bg-current ${moving ? "animate-pulse" : ""}`} />
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
