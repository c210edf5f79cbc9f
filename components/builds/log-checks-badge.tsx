"use client";

import Link from "next/link";
import { useTranslations } from "next-intl";
import type { BuildSummary } from "@/lib/swr/types";
import { BUILD_ERRORS_PATH } from "./console-path";

/**
 * What the log checks found in a build's logs: errors in red, warnings in amber; nothing when the logs are clean,
 * so a clean build's row stays quiet. Errors link to the errors page, where the same error on other builds shows.
 */
export function LogChecksBadge({ build }: { build: Pick<BuildSummary, "log_checks"> }) {
  const t = useTranslations("builds.logChecks");
  const { errors, warnings } = build.log_checks;
  if (errors === 0 && warnings === 0) return null;
  return (
    <span className="inline-flex flex-wrap items-center gap-1 text-xs font-medium" data-testid="log-checks">
      {errors > 0 && (
        <Link
          href={BUILD_ERRORS_PATH}
          className="rounded-full bg-red-50 px-2 py-0.5 text-red-800 ring-1 ring-red-300 hover:underline dark:bg-red-950 dark:text-red-200 dark:ring-red-800"
        >
          {t("errors", { count: errors })}
        </Link>
      )}
      {warnings > 0 && (
        <span className="rounded-full bg-amber-50 px-2 py-0.5 text-amber-900 ring-1 ring-amber-300 dark:bg-amber-950 dark:text-amber-200 dark:ring-amber-800">
          {t("warnings", { count: warnings })}
        </span>
      )}
    </span>
  );
}
