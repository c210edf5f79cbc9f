"use client";

import Link from "next/link";
import { useTranslations } from "next-intl";
import { PanelEmpty, PanelError, PanelLoading } from "@/components/ui/panel-states";
import { useBuildErrors } from "@/lib/swr/use-build-errors";
import { shortId } from "./build-format";
import { consoleHrefOf } from "./console-path";

/**
 * The errors found in builds' logs, the most recently seen first: the cleaned text (what groups them), how many
 * builds and which branches, whether a base branch has it too (then the branch did not bring it), and links to the
 * builds that logged it, which open in the builds console.
 */
export function BuildErrorsPanel() {
  const t = useTranslations("buildErrors");
  const { data, error, mutate } = useBuildErrors();
  return (
    <section aria-labelledby="build-errors-title" className="flex flex-col gap-4">
      <div>
        <h2 id="build-errors-title" className="text-base font-semibold tracking-tight">
          {t("title")}
        </h2>
        <p className="text-sm text-slate-600 dark:text-slate-400">{t("intro")}</p>
      </div>
      {error ? (
        <PanelError error={error} onRetry={() => void mutate()} />
      ) : !data ? (
        <PanelLoading label={t("loading")} />
      ) : data.errors.length === 0 ? (
        <PanelEmpty>{t("none")}</PanelEmpty>
      ) : (
        <ul className="flex flex-col gap-3" aria-label={t("title")}>
          {data.errors.map((found) => (
            <li
              key={found.fingerprint}
              className="flex min-w-0 flex-col gap-2 rounded-lg border border-slate-200 p-3 text-sm dark:border-slate-800"
              data-testid="build-error"
            >
              <div className="flex flex-wrap items-center gap-x-3 gap-y-1 text-xs text-slate-600 dark:text-slate-400">
                <span className="font-medium text-slate-800 dark:text-slate-200">
                  {t("builds", { count: found.builds })}
                </span>
                <span>{t("branches", { branches: found.branches.join(", ") })}</span>
                <span>{t("seen", { first: new Date(found.first_seen), last: new Date(found.last_seen) })}</span>
                <span
                  className={
                    found.on_base
                      ? "rounded-full bg-slate-100 px-2 py-0.5 text-slate-700 dark:bg-slate-800 dark:text-slate-300"
                      : "rounded-full bg-red-50 px-2 py-0.5 text-red-800 ring-1 ring-red-300 dark:bg-red-950 dark:text-red-200 dark:ring-red-800"
                  }
                  data-testid="error-on-base"
                >
                  {found.on_base ? t("onBase") : t("new")}
                </span>
              </div>
              <pre className="max-h-64 overflow-auto rounded bg-slate-50 p-2 font-mono text-xs whitespace-pre-wrap break-words dark:bg-slate-900">
                {found.cleaned}
              </pre>
              <details>
                <summary className="cursor-pointer text-xs text-slate-600 dark:text-slate-400">{t("sample")}</summary>
                <pre className="mt-1 max-h-64 overflow-auto rounded bg-slate-50 p-2 font-mono text-xs whitespace-pre-wrap break-words dark:bg-slate-900">
                  {found.sample}
                </pre>
              </details>
              <p className="flex flex-wrap gap-2 text-xs">
                {found.build_ids.map((buildId) => (
                  <Link
                    key={buildId}
                    href={consoleHrefOf(buildId)}
                    className="font-mono text-indigo-700 underline-offset-2 hover:underline dark:text-indigo-300"
                    title={buildId}
                  >
                    {shortId(buildId)}
                  </Link>
                ))}
              </p>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
