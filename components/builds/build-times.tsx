"use client";

import { formatAge, formatDateTime, formatDuration } from "@/components/ui/format";
import { useNow } from "@/components/ui/use-now";
import type { BuildSummary } from "@/lib/swr/types";

/** "5 min ago", with the exact moment (and its time zone) on hover and for assistive technology. */
export function BuildAge({ build }: { build: BuildSummary }) {
  const now = useNow(30_000);
  return (
    <time dateTime={build.created_at} title={formatDateTime(build.created_at)} data-testid="build-age">
      {formatAge(build.created_at, now)}
    </time>
  );
}

/**
 * How long the build worked: from its first stage to reaching running, failing or being canceled; ticking
 * while it works; nothing while it waits in the queue.
 */
export function BuildRunTime({ build }: { build: BuildSummary }) {
  const now = useNow(1_000);
  if (!build.started_at) return null;
  const end = build.finished_at ? new Date(build.finished_at).getTime() : now;
  return <span data-testid="build-run-time">{formatDuration(end - new Date(build.started_at).getTime())}</span>;
}

/** The preview's link while the build runs: the first thing a person wants from a row. */
export function PreviewLink({ build, className = "" }: { build: BuildSummary; className?: string }) {
  if (build.status !== "running" || !build.preview_url) return null;
  return (
    <a
      href={build.preview_url}
      target="_blank"
      rel="noopener noreferrer"
      data-testid="row-preview-link"
      className={`inline-flex items-center gap-1 font-medium whitespace-nowrap text-emerald-800 underline-offset-2 hover:underline focus-visible:outline-2 focus-visible:outline-emerald-700 dark:text-emerald-300 ${className}`}
    >
      Open preview<span aria-hidden>↗</span>
      <span className="sr-only"> of build {build.build_id.slice(0, 8)} (new tab)</span>
    </a>
  );
}
