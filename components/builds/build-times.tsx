"use client";

import { useTranslations } from "next-intl";
import { useFormat } from "@/components/ui/use-format";
import { useNow } from "@/components/ui/use-now";
import type { BuildSummary } from "@/lib/swr/types";

/** "5 min ago", with the exact moment (and its time zone) on hover and for assistive technology. */
export function BuildAge({ build }: { build: BuildSummary }) {
  const format = useFormat();
  const now = useNow(30_000);
  return (
    // The age moves with the clock: the server's render (the first paint) and the browser's may differ.
    <time
      dateTime={build.created_at}
      title={format.utcDateTime(build.created_at)}
      data-testid="build-age"
      suppressHydrationWarning
    >
      {format.age(build.created_at, now)}
    </time>
  );
}

/**
 * How long the build worked: from its first stage to reaching running, failing or being canceled; ticking
 * while it works; nothing while it waits in the queue.
 */
export function BuildRunTime({ build }: { build: BuildSummary }) {
  const format = useFormat();
  const now = useNow(1_000);
  if (!build.started_at) return null;
  const end = build.finished_at ? new Date(build.finished_at).getTime() : now;
  // Ticking: the server's render (the first paint) and the browser's differ by the moments between them.
  return (
    <span data-testid="build-run-time" suppressHydrationWarning>
      {format.duration(end - new Date(build.started_at).getTime())}
    </span>
  );
}

/** The preview's link while the build runs: the first thing a person wants from a row. */
export function PreviewLink({ build, className = "" }: { build: BuildSummary; className?: string }) {
  const t = useTranslations("builds");
  if (build.status !== "running" || !build.preview_url) return null;
  return (
    <a
      href={build.preview_url}
      target="_blank"
      rel="noopener noreferrer"
      data-testid="row-preview-link"
      className={`inline-flex min-h-6 items-center gap-1 font-medium whitespace-nowrap text-emerald-800 underline-offset-2 hover:underline focus-visible:outline-2 focus-visible:outline-emerald-700 dark:text-emerald-300 ${className}`}
    >
      {t("openPreview")}
      <span aria-hidden>↗</span>
      <span className="sr-only">{t("openPreviewOf", { id: build.build_id.slice(0, 8) })}</span>
    </a>
  );
}
