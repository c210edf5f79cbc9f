"use client";

import { useTranslations } from "next-intl";
import { PanelError } from "@/components/ui/panel-states";
import { IN_PROGRESS_STATUSES } from "@/lib/swr/types";
import { useBuilds } from "@/lib/swr/use-builds";

/** Total, in progress, running and failed builds, from the newest page of the list. */
export function BuildCounters() {
  const t = useTranslations("builds.counters");
  const { data, error, mutate } = useBuilds({});
  if (error) return <PanelError error={error} onRetry={() => void mutate()} className="h-[5.5rem]" />;

  const builds = data?.builds ?? [];
  // The list is paged: past the first page the counts are a floor, and say so.
  const more = data?.next_cursor ? "+" : "";
  const counters = [
    { id: "total" as const, testId: "total", value: builds.length, tone: "text-slate-900 dark:text-slate-100" },
    {
      id: "inProgress" as const,
      testId: "in-progress",
      value: builds.filter((b) => IN_PROGRESS_STATUSES.includes(b.status)).length,
      tone: "text-sky-700 dark:text-sky-300",
    },
    {
      id: "running" as const,
      testId: "running",
      value: builds.filter((b) => b.status === "running").length,
      tone: "text-emerald-700 dark:text-emerald-300",
    },
    {
      id: "failed" as const,
      testId: "failed",
      value: builds.filter((b) => b.status === "failed").length,
      tone: "text-red-700 dark:text-red-300",
    },
  ].map((counter) => (counter.value === 0 ? { ...counter, tone: "text-slate-500 dark:text-slate-400" } : counter));
  // A zero is nothing to look at: grey, not the alarm colour of failures or the green of running previews.

  return (
    <dl className="grid grid-cols-2 gap-3 sm:grid-cols-4" aria-busy={!data || undefined}>
      {counters.map((counter) => (
        <div
          key={counter.id}
          className="rounded-xl border border-slate-200 bg-white px-4 py-3 shadow-sm dark:border-slate-800 dark:bg-slate-900"
        >
          <dt className="text-xs font-medium tracking-wide text-slate-600 uppercase dark:text-slate-400">
            {t(counter.id)}
          </dt>
          <dd
            className={`mt-1 h-8 text-2xl font-semibold tabular-nums ${counter.tone}`}
            data-testid={`counter-${counter.testId}`}
          >
            {data ? (
              `${counter.value}${more}`
            ) : (
              <span className="inline-block h-6 w-10 animate-pulse rounded bg-slate-200 dark:bg-slate-800" />
            )}
          </dd>
        </div>
      ))}
    </dl>
  );
}
