import { useTranslations } from "next-intl";
import type { ApiError } from "@/lib/swr/fetcher";
import { Button } from "./button";

/**
 * Loading, empty and error states of a panel. Each takes the height the loaded content will take, so the
 * page does not jump when data arrives.
 *
 * Loading waits for a script; where scripts do not run it would wait forever, so there the panel says plainly
 * that it needs them (`withoutScripts`, or a general sentence) instead. The server fills in first what it can.
 */
export function PanelLoading({
  label,
  withoutScripts,
  className = "h-40",
}: {
  label: string;
  withoutScripts?: string;
  className?: string;
}) {
  const t = useTranslations("panel");
  return (
    <>
      <div
        role="status"
        className={`animate-pulse rounded-lg bg-slate-100 noscript:hidden dark:bg-slate-800/60 ${className}`}
      >
        <span className="sr-only">{label}</span>
      </div>
      <div
        className={`hidden flex-col items-center justify-center rounded-lg border border-dashed border-slate-300 p-4 text-center text-sm text-slate-600 noscript:flex dark:border-slate-700 dark:text-slate-300 ${className}`}
      >
        <p>{withoutScripts ?? t("needsScript")}</p>
      </div>
    </>
  );
}

export function PanelEmpty({ children, className = "h-40" }: { children: React.ReactNode; className?: string }) {
  return (
    <div
      className={`flex flex-col items-center justify-center gap-3 rounded-lg border border-dashed border-slate-300 p-4 text-center text-sm text-slate-600 dark:border-slate-700 dark:text-slate-300 ${className}`}
    >
      {children}
    </div>
  );
}

export function PanelError({
  error,
  onRetry,
  className = "h-40",
}: {
  error: ApiError | Error;
  onRetry?: () => void;
  className?: string;
}) {
  const t = useTranslations("panel");
  return (
    <div
      role="alert"
      className={`flex flex-col items-center justify-center gap-3 rounded-lg border border-red-200 bg-red-50 p-4 text-center text-sm text-red-800 dark:border-red-900 dark:bg-red-950/40 dark:text-red-200 ${className}`}
    >
      {/* The API's own words for its problems; a failure to reach it at all is the dashboard's to word. */}
      <p>{"status" in error && error.status === 0 ? t("networkError") : error.message}</p>
      {onRetry && (
        <Button size="sm" onClick={onRetry}>
          {t("tryAgain")}
        </Button>
      )}
    </div>
  );
}
